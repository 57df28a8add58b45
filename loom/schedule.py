"""The Schedule: Loom's decision as a small JSON object, named by source labels.

Whoever decides (the solver, a user's `--schedule file.json` or `--block-sizes`, a baseline)
produces one; all go through the same materialization and backends.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

from loom.errors import LoomError


class ScheduleError(LoomError):
    """A schedule file (or `--block-sizes`) that does not fit the kernel or the architecture.

    `file` and `field` (a dotted path such as `block_sizes.tile_q`) lead the message, like the
    field paths of an `ArchError`."""

    kind = "schedule error"

    def __init__(self, message: str, file: str = "", field: str = ""):
        self.file = file
        self.field = field
        prefix = ": ".join(p for p in (file, field) if p)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class NoScheduleError(ScheduleError):
    """No candidate gives a schedule: every one is infeasible (L1, block sizes) or was not solved in time."""

    kind = "no schedule"


# Field -> (expected JSON shape in words, check of a value). Fields not listed take any JSON value.
def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_SCALARS = {"kernel": ("a string", lambda v: isinstance(v, str)),
            "arch": ("a string", lambda v: isinstance(v, str)),
            "candidate": ("a string", lambda v: isinstance(v, str)),
            "source": ("a string", lambda v: isinstance(v, str)),
            "predicted_cycles": ("an integer or null", lambda v: v is None or _is_int(v)),
            "predicted_us": ("a number or null", lambda v: v is None or _is_num(v)),
            "dominant": ("a string or null", lambda v: v is None or isinstance(v, str)),
            "dominant_share": ("a number or null", lambda v: v is None or _is_num(v)),
            "order": ("a list of axis labels", lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v)),
            "notes": ("a list of strings", lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v)),
            "view": ("a list of lists of integers",
                     lambda v: isinstance(v, list) and all(isinstance(x, list) and all(map(_is_int, x)) for x in v)),
            "spatial": ("a mapping of axis labels", lambda v: isinstance(v, dict)),
            "transfers": ("a mapping of tensor names", lambda v: isinstance(v, dict)),
            "split": ("null or {\"loop\": …, \"levels\": [[dim, level, cores], …], \"combine\": …}",
                      lambda v: v is None or (isinstance(v, dict) and isinstance(v.get("levels"), list) and all(
                          isinstance(lv, list) and len(lv) == 3 and all(map(_is_int, lv)) for lv in v["levels"]))),
            "split_note": ("a string", lambda v: isinstance(v, str))}
_INT_MAPS = {"shape": "a positive integer", "block_sizes": "a positive integer", "knobs": "0 or 1"}


def _show(value: Any) -> str:
    text = json.dumps(value)
    return (text if len(text) <= 40 else text[:37] + "...") + f" ({type(value).__name__})"


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
    split: dict | None = None  # reduction split: {"loop", "levels": [[dim, level, cores], ...], "combine", "scheme"}
    split_note: str = ""  # why the kernel's reduction loop is not split (refused, or not chosen)
    source: str = "solver"  # solver | block-sizes | schedule-file | baseline
    notes: list[str] = field(default_factory=list)
    origin: ClassVar[str] = ""  # the file a loaded schedule came from (not part of the JSON)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    def error(self, field: str, message: str) -> ScheduleError:
        """A `ScheduleError` naming this schedule's file (if loaded from one) and `field`."""
        return ScheduleError(message, file=self.origin, field=field)

    @classmethod
    def from_json(cls, text: str, origin: str = "schedule") -> Schedule:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ScheduleError(f"expected valid JSON, found a syntax error at column {err.colno}: {err.msg}",
                                file=f"{origin}:{err.lineno}") from err
        if not isinstance(data, dict):
            raise ScheduleError(f"expected a JSON object of fields at the top level, found {_show(data)}", origin)
        missing = sorted(f for f in ("kernel", "arch", "candidate", "block_sizes") if f not in data)
        if missing:
            raise ScheduleError(f"expected the field(s) {', '.join(missing)}, found nothing", origin,
                                ", ".join(missing))
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ScheduleError(f"unknown field(s) {', '.join(unknown)}; expected some of: {', '.join(known)}",
                                origin, ", ".join(unknown))
        for name, (expected, ok) in _SCALARS.items():
            if name in data and not ok(data[name]):
                raise ScheduleError(f"expected {expected}, found {_show(data[name])}", origin, name)
        for name, expected in _INT_MAPS.items():
            if name not in data:
                continue
            if not isinstance(data[name], dict):
                raise ScheduleError(f"expected a mapping of labels to integers, found {_show(data[name])}",
                                    origin, name)
            for key, value in data[name].items():
                good = _is_int(value) and (value in (0, 1) if name == "knobs" else value > 0)
                if not good:
                    raise ScheduleError(f"expected {expected}, found {_show(value)}", origin, f"{name}.{key}")
        defaults = {"shape": {}, "view": [], "order": [], "spatial": {}, "transfers": {}, "knobs": {}}
        schedule = cls(**{**defaults, **data})
        schedule.origin = origin
        return schedule

    @classmethod
    def load(cls, path: str | Path) -> Schedule:
        path = Path(path)
        if not path.is_file():
            raise ScheduleError("expected a schedule JSON file, found no file at this path", str(path))
        return cls.from_json(path.read_text(), str(path))
