"""The whole pipeline, one stage a line. Stages beyond the frontend land in later issues."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TypeVar

from xdsl.dialects.builtin import ModuleOp

from loom.arch import Arch, load_arch
from loom.errors import InternalError, LoomError
from loom.ir.text import to_text

T = TypeVar("T")


@dataclass
class Lowering:
    """What `loom.lower` returns: the IR after each stage, by dump name."""

    arch: Arch
    stages: dict[str, ModuleOp] = field(default_factory=dict)

    @property
    def module(self) -> ModuleOp:
        return list(self.stages.values())[-1]

    def dump(self, directory: str | Path) -> list[Path]:
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, module in self.stages.items():
            path = out / f"{name}.mlir"
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


def lower(kernel: object, args: tuple, arch: str | Arch = "wormhole_n150") -> Lowering:
    """Lower a Helion kernel bound to example `args` to symbolic MLIR (stage 1)."""
    from loom.frontend.helion import trace_kernel
    from loom.frontend.lower import lower_kernel

    target = arch if isinstance(arch, Arch) else load_arch(arch)
    result = Lowering(target)
    traced = run_stage("frontend", trace_kernel, kernel, args)  # Helion Device IR on CPU
    result.stages["00_frontend"] = run_stage(
        "frontend", lower_kernel, traced, target.tiling.block_alignment
    )  # symbolic MLIR: loom.sym block sizes, affine.parallel grid, linalg compute
    return result
