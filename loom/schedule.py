"""The Schedule: Loom's decision as a small JSON object, named by source labels.

Whoever decides (the solver, a user's `--schedule file.json` or `--block-sizes`, a baseline)
produces one; all go through the same materialization and backends.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from loom.errors import LoomError


class ScheduleError(LoomError):
    """A schedule file that does not fit the kernel or the architecture."""

    kind = "schedule error"


@dataclass
class Schedule:
    kernel: str
    arch: str
    shape: dict[str, int]
    candidate: str  # e.g. "x8_y1y8.mn.x:column.y:row"
    view: list[list[int]]  # level factors per physical dimension
    order: list[str]  # grid axes by priority; also the temporal loop nest, outermost first
    spatial: dict[str, list[list[int]]]  # axis -> [physical dim, level, cores]
    transfers: dict[str, dict]  # tensor -> {"mode": ..., "group": [...]} for DRAM loads
    block_sizes: dict[str, int]
    knobs: dict[str, int]
    predicted_cycles: int | None = None
    predicted_us: float | None = None
    dominant: str | None = None
    dominant_share: float | None = None
    source: str = "solver"  # solver | block-sizes | schedule-file | baseline
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str, origin: str = "schedule") -> Schedule:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ScheduleError(f"{origin}:{err.lineno}: not valid JSON ({err.msg})") from err
        missing = sorted(f for f in ("kernel", "arch", "candidate", "block_sizes") if f not in data)
        if missing:
            raise ScheduleError(f"{origin}: missing field(s) {', '.join(missing)}")
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise ScheduleError(f"{origin}: unknown field(s) {', '.join(unknown)}")
        defaults = {"shape": {}, "view": [], "order": [], "spatial": {}, "transfers": {}, "knobs": {}}
        return cls(**{**defaults, **data})

    @classmethod
    def load(cls, path: str | Path) -> Schedule:
        path = Path(path)
        if not path.is_file():
            raise ScheduleError(f"schedule file {path} does not exist")
        return cls.from_json(path.read_text(), str(path))
