"""Compile a kernel, split it into per-core programs and measure it in `loom.sim` (optionally
checking its numbers against the kernel file's torch reference)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch
from xdsl.dialects import func

from loom.arch import Arch
from loom.backend.placement import place_row_major
from loom.backend.program import Program, ProgramError
from loom.backend.split import build_program
from loom.errors import InternalError, LoomError
from loom.pipeline import Compilation, run_stage
from loom.sim import DeadlockError, SimResult, simulate


class NumericalMismatch(LoomError):
    """The simulated program's output differs from the torch reference."""

    kind = "numerical mismatch"


@dataclass
class Check:
    tensor: str
    max_abs_error: float
    max_reference: float
    tolerance: float

    @property
    def ok(self) -> bool:
        return self.max_abs_error <= self.tolerance


@dataclass
class RunResult:
    compilation: Compilation
    program: Program
    sim: SimResult
    check: Check | None = None


def padded_inputs(program: Program, args: tuple) -> dict[str, np.ndarray]:
    """Kernel arguments as float32 arrays, padded to the program's whole-tile tensor shapes."""
    tensors = [t for t in program.tensors if t.kind == "input"]
    arrays = [a for a in args if isinstance(a, torch.Tensor)]
    out = {}
    for tensor, array in zip(tensors, arrays):
        data = array.detach().float().numpy()
        out[tensor.name] = np.pad(data, [(0, s - d) for s, d in zip(tensor.shape, data.shape)])
    return out


def tolerance(reference: np.ndarray, dtype: torch.dtype) -> float:
    """Absolute tolerance: a few units in the last place of the output dtype at the reference's scale."""
    eps = {torch.bfloat16: 2**-7, torch.float16: 2**-10, torch.float32: 2**-20}.get(dtype, 2**-7)
    return 2 * eps * max(float(np.abs(reference).max()), 1.0)


def tensor_shapes(compilation: Compilation) -> dict[str, tuple[int, ...]]:
    """The shape of every global tensor of a compiled kernel, by name."""
    fn = next(op for op in compilation.lowering.stages["concrete"].walk() if isinstance(op, func.FuncOp))
    return {arg.name_hint: tuple(arg.type.get_shape()) for arg in fn.body.block.args}


def run(compilation: Compilation, args: tuple, *, reference=None, functional: bool = False, trace: bool = False,
        flops: float | None = None, valid: dict[str, tuple[int, ...]] | None = None,
        placed_on: Arch | None = None) -> RunResult:
    """Build the per-core programs of `compilation`'s top-1 schedule and simulate them.

    valid: for a kernel compiled at a shape padded past the real one, each tensor's real shape
    (`tensor_shapes` of the unpadded compilation): blocks are computed whole, but only the real
    tiles move to and from DRAM (`loom.backend.program.Tensor.valid`).
    placed_on: for a kernel compiled for a virtual grid (`loom.backend.placement.virtual_arch`),
    the architecture to run it on, its cores placed row-major."""
    best = compilation.ranked[0]
    arch = compilation.lowering.arch
    check_numbers = reference is not None
    try:  # a program Loom built from a checked schedule that is malformed, overflows L1 or deadlocks is a Loom bug
        stage = "split (per-core programs)"
        program = run_stage(stage, build_program, compilation.lowering.stages["concrete"], best, arch)
        if placed_on is not None:
            program, arch = place_row_major(program, tuple(arch.grid.dims), placed_on), placed_on
        if valid:
            program = replace(program, tensors=tuple(replace(t, valid=valid[t.name]) for t in program.tensors))
        inputs = padded_inputs(program, args) if (functional or check_numbers) else None
        stage = "simulate"
        sim = run_stage(stage, lambda: simulate(program, arch, functional=functional or check_numbers,
                                                inputs=inputs, trace=trace, flops=flops))
    except (ProgramError, DeadlockError) as err:
        raise InternalError(stage, err) from err
    check = None
    if check_numbers:
        expected = reference(*args)
        (output,) = [t for t in program.tensors if t.kind == "output"]
        ref = expected.detach().float().numpy()
        got = sim.outputs[output.name][tuple(slice(0, s) for s in ref.shape)]
        check = Check(output.name, float(np.abs(got - ref).max()), float(np.abs(ref).max()),
                      tolerance(ref, expected.dtype))
    return RunResult(compilation, program, sim, check)
