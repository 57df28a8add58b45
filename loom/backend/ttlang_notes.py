"""What ties an emitted TT-Lang file to its kernel: comments naming the schedule's choices and the
Helion source line of every buffer (`schedule_notes`), and the kernel file's torch reference for
the file's `__main__` (`torch_reference`). Both read a `loom.pipeline.Compilation`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loom.backend.ttlang import TorchReference


def torch_reference(compilation: Any, function: Any) -> TorchReference | None:
    """The kernel file's `reference` (its source) with the kernel's unpadded tensor shapes, for the
    emitted `__main__`; None when there is no reference or its source cannot be read."""
    import inspect
    import textwrap

    from xdsl.dialects import func

    if function is None:
        return None
    try:
        text = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        return None
    fn = next(op for op in compilation.lowering.stages["concrete"].walk() if isinstance(op, func.FuncOp))
    shapes = {a.name_hint: tuple(a.type.get_shape()) for a in fn.body.block.args}
    return TorchReference(text, shapes, function.__name__)



def schedule_notes(compilation: Any, ranked: Any = None) -> dict[str, str]:
    """Comments for `emit_ttlang`: block sizes and who chose them, each load's transfer, and the
    Helion source line of every buffer (from the concrete IR's `loom.loc`)."""
    from loom.ir.dialect import CopyOp, VbBindOp

    ranked = ranked if ranked is not None else compilation.ranked[0]
    source = getattr(compilation.schedule, "source", "solver")
    origin = {"solver": "solver", "block-sizes": "--block-sizes", "schedule-file": "--schedule",
              "baseline": "TTNN default"}.get(source, source)
    problem = ranked.model.problem
    notes: dict[str, str] = {}
    fn = next((op for op in compilation.lowering.stages["concrete"].walk() if op.name == "func.func"), None)
    if fn is not None:
        notes["kernel"] = fn.sym_name.data
    for k, v in sorted(ranked.values.items()):
        if k in problem.domains:
            notes[k] = f"{v} ({origin})"
    modes = {"row": "row multicast", "column": "column multicast", "rect": "rectangle multicast",
             "unicast": "unicast"}
    for t in ranked.model.candidate.transfers:
        if t.direction == "load":
            group = "x".join(map(str, t.group))
            notes[t.tensor] = modes.get(t.mode, t.mode) + (f" over {group} cores" if t.receivers > 1 else "")
    module = compilation.lowering.stages["concrete"]
    lines = _source_lines(module)
    for op in module.walk():
        if isinstance(op, VbBindOp):
            label = op.label.data
            slot = op.memory.owner.slot.value.data
            loc = _first_loc(op.buffer)
            where = f"{loc}: {lines[loc]}" if loc in lines else loc
            copied = any(isinstance(u.operation, CopyOp) for v in _views(op.buffer) for u in v.uses)
            key = label if copied else f"mem{slot}"
            text = where if copied else f"{label} ({where})" if where else label
            if key in notes and not copied:
                notes[key] += f"; {text}"
            else:
                notes.setdefault(key, text)
    return notes


def _views(buffer: Any) -> list:
    from loom.ir.dialect import VbAcquireOp, VbReserveOp

    return [u.operation.results[0] for u in buffer.uses
            if isinstance(u.operation, (VbReserveOp, VbAcquireOp))]


def _first_loc(buffer: Any) -> str:
    for view in _views(buffer):
        for use in view.uses:
            loc = use.operation.attributes.get("loom.loc")
            if loc is not None:
                return loc.data
    return ""


def _source_lines(module: Any) -> dict[str, str]:
    """`file:line` -> the stripped source line, for the kernel file named by `loom.source`."""
    from xdsl.dialects import func

    out = {}
    for op in module.walk():
        if isinstance(op, func.FuncOp) and "loom.source" in op.attributes:
            path = Path(op.attributes["loom.source"].data)
            try:
                text = path.read_text().splitlines()
            except OSError:
                return out
            for i, line in enumerate(text, 1):
                out[f"{path.name}:{i}"] = line.strip()
    return out
