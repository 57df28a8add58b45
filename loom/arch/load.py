"""Loading architecture descriptions from YAML and reporting their mistakes as `ArchError`.

A bare name (`wormhole_n150`) is looked up in `loom/archs/<name>.yaml`; anything containing a
`/` or ending in `.yaml` is a path. Every problem becomes an `ArchError` naming the file and,
where there is one, the dotted field path (`noc.link_bytes_per_cycle`, `dram.bank_positions.3`).
"""

from __future__ import annotations

import difflib
import os
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from loom.arch.schema import INCONSISTENT, Arch
from loom.errors import ArchError

ARCH_DIR = Path(__file__).resolve().parent.parent / "archs"
"""Directory of the architecture descriptions shipped with Loom."""


def list_archs() -> list[str]:
    """Names of the shipped architectures, sorted."""
    return sorted(p.stem for p in ARCH_DIR.glob("*.yaml"))


def load_arch(name_or_path: str | Path) -> Arch:
    """Load and validate an architecture by name or path; results are cached per file version."""
    path = resolve_arch_path(name_or_path)
    return _load_cached(str(path), path.stat().st_mtime_ns)


def resolve_arch_path(name_or_path: str | Path) -> Path:
    """The YAML file that `name_or_path` designates; raises `ArchError` if there is none."""
    text = str(name_or_path)
    is_path = (isinstance(name_or_path, Path) or "/" in text or os.sep in text
               or text.endswith((".yaml", ".yml")))
    if is_path:
        path = Path(text).expanduser()
        if not path.is_file():
            raise ArchError("expected an architecture YAML file, found no file at this path", file=text)
        return path.resolve()
    path = ARCH_DIR / f"{text}.yaml"
    if path.is_file():
        return path
    available = list_archs()
    close = difflib.get_close_matches(text, available, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise ArchError(f"unknown architecture '{text}'{hint}; available: {', '.join(available)}")


@cache
def _load_cached(path: str, mtime_ns: int) -> Arch:
    """Parse and validate one file; `mtime_ns` is part of the cache key so edits are picked up."""
    data = _read_yaml(Path(path))
    if not isinstance(data, dict):
        found = type(data).__name__
        raise ArchError(f"expected a mapping of fields at the top level, found {found}", file=path)
    try:
        return Arch.model_validate(data)
    except ValidationError as exc:
        raise _translate(exc, path) from None


class _UniqueKeyLoader(yaml.SafeLoader):
    """A safe YAML loader that rejects a key given twice in one mapping (PyYAML keeps the last)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = key in seen
                seen.add(key)
            except TypeError:  # unhashable key: let PyYAML report it
                continue
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, f"found duplicate key {key!r}",
                    key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


def _read_yaml(path: Path) -> Any:
    """The YAML document at `path`; syntax errors become `ArchError`s naming file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ArchError(f"cannot read the file: {exc.strerror}", file=str(path)) from None
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = ": ".join(p for p in (exc.context, exc.problem) if p)
        raise ArchError(f"invalid YAML{where}: {problem}", file=str(path)) from None
    except yaml.YAMLError as exc:
        raise ArchError(f"invalid YAML: {exc}", file=str(path)) from None


def _translate(exc: ValidationError, file: str) -> ArchError:
    """An `ArchError` for the first validation problem, mentioning how many more there are."""
    errors = exc.errors(include_url=False)
    # An unknown field is often a misspelt one that also shows up as missing: report it first.
    errors.sort(key=lambda e: e["type"] != "extra_forbidden")
    first = errors[0]
    message = _describe(first)
    if len(errors) > 1:
        others = ", ".join(_dotted(e) for e in errors[1:4]) + (", ..." if len(errors) > 4 else "")
        message += f" ({len(errors) - 1} more problem(s): {others})"
    return ArchError(message, file=file, field=_dotted(first))


def _dotted(error: Any) -> str:
    """The dotted field path of one pydantic error (`noc.multicast.1`)."""
    parts = [str(p) for p in error["loc"] if p != "[key]"]
    if error["type"] == INCONSISTENT:
        parts.append(error["ctx"]["field"])
    return ".".join(parts)


def _describe(error: Any) -> str:
    """One sentence saying what was expected and what was found."""
    kind, loc = error["type"], [p for p in error["loc"] if p != "[key]"]
    if kind == INCONSISTENT:
        return str(error["ctx"]["message"])
    if kind == "missing":
        doc = _field_doc(loc)
        return "expected this field" + (f" ({doc})" if doc else "") + ", found nothing"
    if kind == "extra_forbidden":
        allowed = _allowed_fields(loc[:-1])
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1, cutoff=0.7)
        hint = f"did you mean '{close[0]}'? " if close else ""
        return f"unknown field '{loc[-1]}'; {hint}expected one of: {', '.join(allowed)}"
    msg = str(error["msg"])
    expected = "expected " + msg[len("Input should be "):] if msg.startswith("Input should be ") else msg
    expected = expected.replace("expected greater", "expected a value greater").replace(
        "expected less", "expected a value less")
    return f"{expected}, found {_show(error.get('input'))}"


def _show(value: Any) -> str:
    """A short rendering of a found value with its YAML-level type."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def _model_at(loc: list[Any]) -> type[BaseModel] | None:
    """The schema model that owns the fields at `loc`, walking from `Arch`."""
    model: type[BaseModel] = Arch
    for part in loc:
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return None
        model = annotation
    return model


def _field_doc(loc: list[Any]) -> str:
    """The description of the field at `loc`, or '' if there is none."""
    model = _model_at(loc[:-1]) if loc else None
    field = model.model_fields.get(str(loc[-1])) if model else None
    return (field.description or "").rstrip(".") if field else ""


def _allowed_fields(loc: list[Any]) -> list[str]:
    """The field names accepted by the model at `loc`."""
    model = _model_at(loc)
    return list(model.model_fields) if model else []
