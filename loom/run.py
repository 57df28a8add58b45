"""Compile a kernel, split it into per-core programs and measure it in `loom.sim` (optionally
checking its numbers against the kernel file's torch reference)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
from xdsl.dialects import func

from loom.arch import Arch
from loom.backend.placement import place_row_major
from loom.backend.program import DramRead, Program, ProgramError, walk
from loom.backend.split import build_program
from loom.errors import InternalError, LoomError, SourceLocation, UnsupportedError
from loom.frontend.helion import closure_tensors, ir_name
from loom.host_epilogue import host_code_line, run_host_code
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

    def report_line(self) -> str:
        """The `check` line of a run report (rich markup)."""
        verdict = "[green]matches[/]" if self.ok else "[red]DIFFERS from[/]"
        return (f"  check          {self.tensor} {verdict} the torch reference: max |error| {self.max_abs_error:.3g} "
                f"(tolerance {self.tolerance:.3g}, reference max {self.max_reference:.3g})")

    def mismatch(self) -> str:
        """Why a failed check failed, for the NumericalMismatch error."""
        return (f"{self.tensor}: max |error| {self.max_abs_error:.3g} exceeds the tolerance {self.tolerance:.3g} "
                f"(reference max {self.max_reference:.3g})")


@dataclass
class RunResult:
    compilation: Compilation
    program: Program
    sim: SimResult
    check: Check | None = None


_EXACT_INT = 2**24  # the largest integer float32 holds exactly, with every smaller one


def padded_inputs(program: Program, args: tuple, kernel=None) -> dict[str, np.ndarray]:
    """Kernel arguments as float32 arrays, padded to the program's whole-tile tensor shapes; each found by
    its parameter name when the Helion `kernel` is given (an argument the kernel never reads has no tensor;
    an output the caller passed in and the program reads, `hl.atomic_add`'s, starts with its contents)."""
    tensors = [t for t in program.tensors if t.kind == "input"]
    arrays = [a for a in args if isinstance(a, torch.Tensor)]
    if kernel is not None:
        params = list(inspect.signature(kernel.fn).parameters)
        by_name = {ir_name(n): a for n, a in {**dict(zip(params, args)), **closure_tensors(params, args)}.items()}
        arrays = [by_name.get(t.name) for t in tensors]
        read = {i.tensor for g in program.groups for role in (g.reader, g.writer) for i in walk(role)
                if isinstance(i, DramRead)}
        passed = [t for t in program.tensors if t.kind == "output" and t.name in read
                  and isinstance(by_name.get(t.name), torch.Tensor)]
        if all(isinstance(a, torch.Tensor) for a in arrays):
            tensors, arrays = tensors + passed, arrays + [by_name[t.name] for t in passed]
        if any(not isinstance(a, torch.Tensor) for a in arrays):  # a view the host code made: in order
            arrays = [a for a in args if isinstance(a, torch.Tensor)]
    out = {}
    for tensor, array in zip(tensors, arrays):
        if not array.is_floating_point() and array.numel() and int(array.abs().max()) > _EXACT_INT:
            raise UnsupportedError(f"argument '{tensor.name}' holds integers up to {int(array.abs().max())}; the "
                                   f"simulator carries int32 tiles as float32, exact up to {_EXACT_INT}")
        data = array.detach().float().numpy()
        if tensor.order is not None:  # held permuted (`loom.frontend.layouts`): laid out so by the host
            if data.ndim != len(tensor.order):
                raise UnsupportedError(f"argument '{tensor.name}' of shape {list(array.shape)} is held permuted "
                                       f"({list(tensor.order)}) but is a view of another rank; expected the argument "
                                       "itself")
            data = data.transpose(tensor.order)
        if tensor.vector is not None and len(tensor.shape) == 2 and data.ndim > 1:  # a flat view (`x.view(-1)`)
            data = data.reshape(-1)
        if tensor.vector == "scalar" and data.ndim == len(tensor.shape) - 2:  # one value per batch slice
            data = data[..., None, None]
        if tensor.vector is not None and data.ndim == len(tensor.shape) - 1:  # a vector, or a batch of them
            data = np.expand_dims(data, -2 if tensor.vector == "row" else -1)
        if data.ndim != len(tensor.shape):  # an argument the host code reshaped (`x.reshape(b * m, k)`)
            if data.size == int(np.prod(tensor.shape)):
                data = data.reshape(tensor.shape)
            elif len(tensor.shape) == 2:
                data = data.reshape(-1, data.shape[-1])  # leading dims merged; the last padded below
            if data.ndim != len(tensor.shape) or any(d > s for d, s in zip(data.shape, tensor.shape)):
                raise UnsupportedError(f"argument '{tensor.name}' of shape {list(array.shape)} does not fit the "
                                       f"program's {list(tensor.shape)}; expected a reshape keeping the last dimension")
        out[tensor.name] = np.pad(data, [(0, s - d) for s, d in zip(tensor.shape, data.shape)])
    return out


def tolerance(reference: np.ndarray, dtype: torch.dtype) -> float:
    """Absolute tolerance: a few units in the last place of the output dtype at the reference's scale (its
    largest finite value)."""
    eps = {torch.bfloat16: 2**-7, torch.float16: 2**-10, torch.float32: 2**-20,
           torch.float8_e4m3fn: 2**-3, torch.float8_e5m2: 2**-2}.get(dtype, 2**-7)
    return 2 * eps * max(_finite_max(reference), 1.0)


def _finite_max(values: np.ndarray) -> float:
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size else 0.0


def _kernel_function(compilation: Compilation) -> func.FuncOp:
    """The compiled kernel's function in its concrete IR (its arguments, `loom.outputs`, `loom.partials`)."""
    return next(op for op in compilation.lowering.stages["concrete"].walk() if isinstance(op, func.FuncOp))


def tensor_shapes(compilation: Compilation) -> dict[str, tuple[int, ...]]:
    """The shape of every global tensor of a compiled kernel, by name."""
    fn = _kernel_function(compilation)
    return {arg.name_hint: tuple(arg.type.get_shape()) for arg in fn.body.block.args}


def run(compilation: Compilation, args: tuple, *, reference=None, functional: bool = False, trace: bool = False,
        flops: float | None = None, valid: dict[str, tuple[int, ...]] | None = None,
        placed_on: Arch | None = None, engine_nocs: dict[str, int] | None = None) -> RunResult:
    """Build the per-core programs of `compilation`'s top-1 schedule and simulate them.

    valid: for a kernel compiled at a shape padded past the real one, each tensor's real shape
    (`tensor_shapes` of the unpadded compilation): blocks are computed whole, but only the real
    tiles move to and from DRAM (`loom.backend.program.Tensor.valid`).
    placed_on: for a kernel compiled for a virtual grid (`loom.backend.placement.virtual_arch`),
    the architecture to run it on, its cores placed row-major.
    engine_nocs: the NoC each data-movement role drives, where a baseline's kernels choose their own
    (`loom.backend.program.Program.engine_nocs`)."""
    best = compilation.ranked[0]
    arch = compilation.lowering.arch
    placed_on = placed_on or compilation.placed_on
    check_numbers = reference is not None
    try:  # a program Loom built from a checked schedule that is malformed, overflows L1 or deadlocks is a Loom bug
        stage = "split (per-core programs)"
        program = run_stage(stage, build_program, compilation.lowering.stages["concrete"], best, arch)
        if placed_on is not None:
            program, arch = place_row_major(program, tuple(arch.grid.dims), placed_on), placed_on
        if valid:
            program = replace(program, tensors=tuple(replace(t, valid=valid[t.name]) for t in program.tensors))
        if engine_nocs:
            program = replace(program, engine_nocs=engine_nocs)
        inputs = padded_inputs(program, args, compilation.kernel) if (functional or check_numbers) else None
        stage = "simulate"
        sim = run_stage(stage, lambda: simulate(program, arch, functional=functional or check_numbers,
                                                inputs=inputs, trace=trace, flops=flops))
    except (ProgramError, DeadlockError) as err:
        raise InternalError(stage, err) from err
    check = check_outputs(compilation, program, sim.outputs, args, reference) if check_numbers else None
    return RunResult(compilation, program, sim, check)


def check_outputs(compilation: Compilation, program: Program, outputs: dict[str, np.ndarray], args: tuple,
                  reference) -> Check:
    """Compare a run's output tensors (by name, padded as the program holds them; loom.sim's or
    tt-lang-sim's) with the kernel file's reference(): through the kernel's host code where it has some
    (`loom.host_epilogue`), else tensor by tensor."""
    written = {t.name for t in program.tensors if t.kind == "output"}
    host_line = host_code_line(compilation.kernel, written)
    if host_line is None:
        return _check(program, outputs, reference, args, _returned(compilation), tensor_shapes(compilation))
    returned = kernel_values(compilation, program, outputs, args)
    return _check_returned(returned, reference(*args), reference, host_line)


def kernel_values(compilation: Compilation, program: Program, outputs: dict[str, np.ndarray], args: tuple) -> object:
    """What `kernel(*args)` returns when its device loop writes a run's output tensors (by name, padded as
    the program holds them): the kernel's function run in torch with its device loop replaced by them
    (`loom.host_epilogue`, which fills the tensors the host code made, in their element types), so its host
    code and the views it returns (`out.view(q.size())`) apply. This is how Loom stands in for the kernel
    inside a caller's own code, and how `check_outputs` runs a kernel's host code."""
    shapes = tensor_shapes(compilation)
    results = {t.name: torch.from_numpy(_kernel_value(t, outputs[t.name], shapes))
               for t in program.tensors if t.kind == "output"}
    fn = _kernel_function(compilation)
    partials = {a.data for a in fn.attributes["loom.partials"].data} if "loom.partials" in fn.attributes else set()
    best = compilation.ranked[0]  # the schedule the program was built from (`run`), its block sizes by label
    sizes = {label: value for label, value in best.values.items() if label in best.model.problem.domains}
    return run_host_code(compilation.kernel, args, results, sizes, partials)


def _returned(compilation: Compilation) -> list[str]:
    """The kernel's outputs in the order it returns them (the frontend's `loom.outputs`)."""
    fn = _kernel_function(compilation)
    return [a.data for a in fn.attributes["loom.outputs"].data]


def _check(program: Program, simulated: dict[str, np.ndarray], reference, args: tuple, returned: list[str],
           shapes: dict[str, tuple[int, ...]]) -> Check:
    """Compare every output tensor with the reference's (one tensor, or a tuple with one per output, paired
    in the order the kernel returns them, else by shape and then in order); the worst of them, relative to
    its tolerance, is the result. `shapes`: each tensor's shape in the kernel, before tile padding."""
    outputs = [t for t in program.tensors if t.kind == "output"]
    in_return_order = sorted(t.name for t in outputs) == sorted(returned)
    if in_return_order:
        outputs.sort(key=lambda t: returned.index(t.name))
    expected = reference(*args)
    refs = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    refs = [r for r in refs if isinstance(r, torch.Tensor)]
    if len(refs) != len(outputs):
        raise UnsupportedError(
            f"the kernel writes {len(outputs)} tensor(s) ({', '.join(t.name for t in outputs)}) but reference() "
            f"returns {len(refs)}; expected one reference tensor per output", _def_location(reference))
    unused = list(range(len(refs)))
    checks = []
    for position, output in enumerate(outputs):
        if in_return_order:
            pick = position
        else:
            pick = next((i for i in unused if tuple(refs[i].shape) == tuple(output.shape)), None)
            pick = pick if pick is not None else next((i for i in unused if _fits(refs[i], output)), unused[0])
        unused.remove(pick)
        expected_tensor = refs[pick]
        ref = expected_tensor.detach().float().numpy()
        data = _kernel_value(output, simulated[output.name], shapes)
        if data.shape != ref.shape and data.size == ref.size:  # the host returns it reshaped (`out.view(…)`)
            got = data.reshape(ref.shape)
        elif data.ndim == ref.ndim:
            got = data[tuple(slice(0, s) for s in ref.shape)]
        else:  # a host-side reshape of the output (`out.view(b, m, n)`): same elements, other shape
            got = _reshaped(data, ref, output.name)
        checks.append(_compared(output.name, got, ref, expected_tensor.dtype))
    return _worst(checks)


def _compared(name: str, got: np.ndarray, ref: np.ndarray, dtype: torch.dtype) -> Check:
    """One value against its reference (float32 arrays of one shape), at the tolerance of `dtype`: a NaN or
    an infinity matches the same in the reference (`x ** 1.5` of a negative x), and nothing else."""
    with np.errstate(invalid="ignore"):
        same = (got == ref) | (np.isnan(got) & np.isnan(ref))
        gap = np.where(same, 0.0, np.abs(got - ref))
    error = float(np.nan_to_num(gap, nan=np.inf).max()) if ref.size else 0.0
    return Check(name, error, _finite_max(ref), tolerance(ref, dtype))


def _worst(checks: list[Check]) -> Check:
    """The check furthest out relative to its tolerance."""
    return max(checks, key=lambda c: c.max_abs_error / max(c.tolerance, 1e-30))


def _kernel_value(output, data: np.ndarray, shapes: dict[str, tuple[int, ...]]) -> np.ndarray:
    """A simulated output in the kernel's shape: the tile padding dropped, a vector's unit dim removed, a
    tensor held permuted put back in the kernel's order."""
    data = data[tuple(slice(0, s) for s in shapes.get(output.name, data.shape))]
    if output.vector is not None:  # a vector output held as a row or column, or one value per batch slice
        data = {"row": lambda: data[..., 0, :], "col": lambda: data[..., 0], "scalar": lambda: data[..., 0, 0]}[
            output.vector]()
    if output.order is not None:  # `loom.frontend.layouts`
        data = data.transpose(np.argsort(output.order))
    return data


def _check_returned(returned, expected, reference, host_line: int) -> Check:
    """Compare what the kernel returned (its host code from `host_line` run on the simulated results) with
    reference(), value by value in return order; the worst, relative to its tolerance, is the result."""
    got = [v for v in (returned if isinstance(returned, (tuple, list)) else [returned]) if isinstance(v, torch.Tensor)]
    refs = [r for r in (expected if isinstance(expected, (tuple, list)) else [expected]) if isinstance(r, torch.Tensor)]
    if len(got) != len(refs) or any(g.shape != r.shape for g, r in zip(got, refs)):
        raise UnsupportedError(f"the kernel returns tensors of shapes {[list(g.shape) for g in got]} but reference() "
                               f"returns {[list(r.shape) for r in refs]}; expected one reference tensor per returned "
                               "tensor, in the same order and shape", _def_location(reference))
    return _worst([_compared(f"return value {position} (host code from line {host_line} run in torch, not simulated)",
                             value.detach().float().numpy(), ref.detach().float().numpy(), ref.dtype)
                   for position, (value, ref) in enumerate(zip(got, refs))])


def _fits(ref: torch.Tensor, output) -> bool:
    return ref.dim() == len(output.shape) and all(r <= s for r, s in zip(ref.shape, output.shape))


def _reshaped(data: np.ndarray, ref: np.ndarray, name: str) -> np.ndarray:
    """A 2-D output the host code returns reshaped (`out_2d.view(b, m, n)`): its rows, unpadded, in the
    reference's shape (the last dimension kept)."""
    cols = ref.shape[-1] if ref.ndim else 1
    rows = ref.size // cols if cols else 0
    if data.ndim != 2 or cols > data.shape[1] or rows > data.shape[0]:
        raise UnsupportedError(f"output '{name}' of shape {list(data.shape)} cannot be compared with a reference "
                               f"of shape {list(ref.shape)}; expected the same shape, or a 2-D output the host "
                               "reshapes keeping its last dimension")
    return data[:rows, :cols].reshape(ref.shape)


def _def_location(fn) -> SourceLocation | None:
    try:
        path, line = inspect.getsourcefile(fn), fn.__code__.co_firstlineno
    except (TypeError, AttributeError):
        return None
    lines = Path(path).read_text().splitlines() if path and Path(path).is_file() else []
    return SourceLocation(str(path), line, lines[line - 1] if 0 < line <= len(lines) else "")
