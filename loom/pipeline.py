"""The whole pipeline, one stage a line. Stages beyond buffer concretization land in later issues."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TypeVar

from xdsl.dialects.builtin import ModuleOp

from loom.arch import Arch, load_arch
from loom.errors import InternalError, LoomError
from loom.ir.text import context, to_text

T = TypeVar("T")
STAGES = ("frontend", "dataflow", "concrete")
DUMP_NAMES = {"frontend": "00_frontend", "dataflow": "01_dataflow", "concrete": "02_concrete"}


@dataclass
class Lowering:
    """What `loom.lower` returns: the IR after each stage, by stage name."""

    arch: Arch
    stages: dict[str, ModuleOp] = field(default_factory=dict)

    @property
    def module(self) -> ModuleOp:
        return list(self.stages.values())[-1]

    def dump(self, directory: str | Path) -> list[Path]:
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for stage, module in self.stages.items():
            path = out / f"{DUMP_NAMES[stage]}.mlir"
            path.write_text(to_text(module))
            written.append(path)
        return written


def run_stage(stage: str, fn: Callable[..., T], *args) -> T:
    """Run one stage; user errors pass through, anything else is an internal error naming the stage."""
    try:
        return fn(*args)
    except LoomError:
        raise
    except Exception as err:  # noqa: BLE001 - reported as a Loom bug with its stage
        raise InternalError(stage, err) from err


def _apply(pass_type) -> Callable[[ModuleOp], ModuleOp]:
    def run(module: ModuleOp) -> ModuleOp:
        result = module.clone()  # every stage's IR stays available for dumps
        pass_type().apply(context(), result)
        return result

    return run


def lower(kernel: object, args: tuple, arch: str | Arch = "wormhole_n150", stage: str = "concrete") -> Lowering:
    """Lower a Helion kernel bound to example `args` up to `stage` (frontend, dataflow or concrete)."""
    from loom.frontend.helion import trace_kernel
    from loom.frontend.lower import lower_kernel
    from loom.passes.concretize_buffers import ConcretizeBuffers
    from loom.passes.reify_dataflow import ReifyDataflow

    if stage not in STAGES:
        raise LoomError(f"unknown stage '{stage}'; choose one of {', '.join(STAGES)}")
    target = arch if isinstance(arch, Arch) else load_arch(arch)
    result = Lowering(target)
    steps = [
        ("frontend", lambda _: lower_kernel(trace_kernel(kernel, args), target.tiling.block_alignment)),
        ("dataflow", _apply(ReifyDataflow)),  # tile values -> virtual buffers with reserve/commit/acquire/release
        ("concrete", _apply(ConcretizeBuffers)),  # merge handoffs, share storage by liveness, semaphores
    ]
    module = None
    for name, step in steps:
        module = run_stage(name, step, module)
        result.stages[name] = module
        if name == stage:
            break
    return result
