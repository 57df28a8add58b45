"""What every kernel's calibration shares: the skip exception, simulation specs, rows, chip names."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loom.arch import Arch, load_arch


class Skip(Exception):
    """A point Loom cannot express (or compare); the message is the reason, grouped in the summary."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


CHIP_FAMILIES = {
    "wormhole_n150": ("wormhole_n150",),
    "wormhole_b0": ("wormhole_n150",),
    "blackhole_p150": ("blackhole_p150", "blackhole_p150_11x10"),
    "blackhole": ("blackhole_p150", "blackhole_p150_11x10"),
}
"""Chip names used by the ground-truth files -> Loom architecture descriptions of that chip
(the grid a point states picks among them)."""


def arch_for(chip: str, grid: tuple[int, int] | None = None) -> Arch:
    """The architecture description of `chip` (with `grid` when given); `Skip` when there is none."""
    names = CHIP_FAMILIES.get(chip)
    if names is None:
        raise Skip(f"unknown chip '{chip}'")
    archs = [load_arch(n) for n in names]
    if grid is None:
        return archs[0]
    for a in archs:
        if tuple(a.grid.dims) == tuple(grid):
            return a
    raise Skip(f"no architecture description of {chip} with a {grid[0]}x{grid[1]} grid")


@dataclass(frozen=True)
class SimSpec:
    """One simulation: `build()` names a module-level builder and its (picklable) arguments, so
    that identical programs are simulated once and specs can run in worker processes."""

    kind: str
    arch: str
    args: tuple

    def run(self) -> dict[str, float]:
        return BUILDERS[self.kind](self.arch, *self.args)


BUILDERS: dict[str, Callable[..., dict[str, float]]] = {}
"""kind -> function(arch name, *args) returning simulated figures (`kernel_cycles`, `cycles`, ...)."""


@dataclass
class Plan:
    """How one point is predicted: the simulations it needs and how their figures become a row."""

    point: Any
    specs: list[SimSpec]
    finish: Callable[[list[dict[str, float] | None]], Row]


@dataclass
class Row:
    """One point's comparison (or why there is none)."""

    id: str
    chip: str
    kernel: str
    metric: str | None = None
    measured: float | None = None
    predicted: float | None = None
    skipped: str | None = None
    arch: str | None = None
    config_type: str | None = None
    dtype: str | None = None
    gflop: float | None = None
    note: str = ""
    file: str = ""
    detail: dict = field(default_factory=dict)

    @property
    def error(self) -> float | None:
        """predicted / measured - 1 (positive: the simulator is slower / predicts more)."""
        if self.measured and self.predicted is not None:
            return self.predicted / self.measured - 1.0
        return None

    def as_json(self) -> dict:
        return {"id": self.id, "chip": self.chip, "kernel": self.kernel, "metric": self.metric,
                "measured": self.measured, "predicted": self.predicted, "skipped": self.skipped,
                "error": None if self.error is None else round(self.error, 6), "arch": self.arch,
                "config_type": self.config_type, "dtype": self.dtype, "gflop": self.gflop, "note": self.note,
                "file": self.file}


def number(value: Any) -> float | None:
    """A published value as a float, or None when it is not a plain number ("~16.4 cycles")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value).strip().rstrip("%"))
    except ValueError:
        return None
