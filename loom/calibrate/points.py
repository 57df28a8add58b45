"""Reading a ground-truth file (`shared/reference/ground_truth/*.yaml`) into `Point`s.

The format is the shared files' format, unchanged: a mapping with `points`, a list of mappings,
each with `id`, `chip`, `kernel` and `measured` (a list of `{metric, value, unit}`), plus
kernel-specific fields (`shape`, `dtype`, `fidelity`, `use_trace`, `config`, `source`, ...).

Two kinds of problem, kept apart:
- a *malformed file* (not YAML, no `points` list, a point without an `id`, `measured` not a list
  of metrics) raises `CalibrationFileError` naming the file and the field path
  (`points.3.measured.0.metric`); the CLI exits with status 2;
- a well-formed point Loom does not know how to read (an unknown chip, kernel, field or unit)
  is kept and later skipped with a reason naming what was unknown; it never stops the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from loom.errors import LoomError


class CalibrationFileError(LoomError):
    """A ground-truth file that does not follow the shared format; names the file and field path."""

    kind = "calibration file error"

    def __init__(self, message: str, file: str = "", field: str = ""):
        self.file = file
        self.field = field
        prefix = ": ".join(p for p in (file, field) if p)
        super().__init__(f"{prefix}: {message}" if prefix else message)


@dataclass(frozen=True)
class Measurement:
    """One published figure of a point."""

    metric: str
    value: Any
    unit: str
    note: str = ""


@dataclass(frozen=True)
class Point:
    """One published measurement, as read from its file (`raw` keeps every field)."""

    id: str
    chip: str
    kernel: str
    measured: tuple[Measurement, ...]
    raw: dict = field(repr=False, compare=False, hash=False)
    file: str = ""
    index: int = 0
    templates: dict = field(default_factory=dict, repr=False, compare=False, hash=False)
    """The file's `templates.config` (named configs a point's `config.template` refers to)."""

    def metric(self, name: str) -> Measurement | None:
        """The first measurement named `name`, or None."""
        return next((m for m in self.measured if m.metric == name), None)


def _type_name(value: Any) -> str:
    return "nothing" if value is None else type(value).__name__


def load_points(path: str | Path) -> list[Point]:
    """Every point of one ground-truth file; `CalibrationFileError` when the file is malformed."""
    file = str(path)
    p = Path(path)
    if not p.is_file():
        raise CalibrationFileError("expected a ground-truth YAML file, found no file at this path", file=file)
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise CalibrationFileError(f"expected YAML, found a syntax error{where}: "
                                   f"{getattr(exc, 'problem', exc)}", file=file) from None
    if not isinstance(data, dict):
        raise CalibrationFileError(f"expected a mapping with a 'points' list at the top level, found "
                                   f"{_type_name(data)}", file=file)
    if "points" not in data:
        raise CalibrationFileError(f"expected a 'points' list, found only {', '.join(map(str, data)) or 'nothing'}",
                                   file=file, field="points")
    raw_points = data["points"]
    if not isinstance(raw_points, list):
        raise CalibrationFileError(f"expected a list of points, found {_type_name(raw_points)}", file=file,
                                   field="points")
    templates = data.get("templates") or {}
    if not isinstance(templates, dict) or not isinstance(templates.get("config") or {}, dict):
        raise CalibrationFileError("expected a mapping of named templates", file=file, field="templates")
    points, seen = [], {}
    for i, raw in enumerate(raw_points):
        point = _point(raw, file, f"points.{i}", i, templates.get("config") or {})
        if point.id in seen:
            raise CalibrationFileError(f"expected unique point ids, found '{point.id}' also at points."
                                       f"{seen[point.id]}", file=file, field=f"points.{i}.id")
        seen[point.id] = i
        points.append(point)
    return points


def _point(raw: Any, file: str, where: str, index: int, templates: dict) -> Point:
    if not isinstance(raw, dict):
        raise CalibrationFileError(f"expected a mapping (one point), found {_type_name(raw)}", file=file,
                                   field=where)
    for name in ("id", "chip", "kernel"):
        if name not in raw:
            raise CalibrationFileError(f"expected a '{name}' field, found none", file=file, field=where)
        if not isinstance(raw[name], str) or not raw[name].strip():
            raise CalibrationFileError(f"expected a non-empty string, found {_type_name(raw[name])} "
                                       f"{raw[name]!r}", file=file, field=f"{where}.{name}")
    if "measured" not in raw:
        raise CalibrationFileError("expected a 'measured' list, found none", file=file, field=where)
    measured = raw["measured"]
    if not isinstance(measured, list) or not measured:
        raise CalibrationFileError(f"expected a non-empty list of measurements, found {_type_name(measured)}",
                                   file=file, field=f"{where}.measured")
    out = []
    for j, m in enumerate(measured):
        mwhere = f"{where}.measured.{j}"
        if not isinstance(m, dict):
            raise CalibrationFileError(f"expected a mapping with metric, value and unit, found {_type_name(m)}",
                                       file=file, field=mwhere)
        for name in ("metric", "value", "unit"):
            if name not in m:
                raise CalibrationFileError(f"expected a '{name}' field, found none", file=file, field=mwhere)
        if not isinstance(m["metric"], str):
            raise CalibrationFileError(f"expected a string, found {_type_name(m['metric'])}", file=file,
                                       field=f"{mwhere}.metric")
        if not isinstance(m["unit"], str):
            raise CalibrationFileError(f"expected a string, found {_type_name(m['unit'])}", file=file,
                                       field=f"{mwhere}.unit")
        out.append(Measurement(m["metric"], m["value"], m["unit"], str(m.get("note", ""))))
    for name in ("shape", "config", "dtype", "source"):
        if name in raw and not isinstance(raw[name], dict):
            raise CalibrationFileError(f"expected a mapping, found {_type_name(raw[name])}", file=file,
                                       field=f"{where}.{name}")
    return Point(raw["id"], raw["chip"], raw["kernel"], tuple(out), raw, file, index, templates)


def unknown_fields(raw: dict, known: dict[str, set[str] | None]) -> list[str]:
    """Dotted paths of fields of `raw` that `known` does not list (`None`: any sub-field)."""
    out = []
    for key, value in raw.items():
        if key not in known:
            out.append(str(key))
        elif known[key] is not None and isinstance(value, dict):
            out += [f"{key}.{k}" for k in value if k not in known[key]]
    return out
