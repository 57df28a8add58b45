"""The host code after a kernel's device loop: Loom compiles the loop; the host code runs in torch.

Helion runs the statements after the last `for … in hl.tile(…)` on the host (`return torch.sum(loss)`,
`loss = loss / n` then `return loss`). Loom compiles the device loop into per-core programs; `loom run`
runs such host code in torch on the simulated results (`loom.host_epilogue`), as Helion would, and the
simulated time does not include it. A kernel that ends with `return` of the loop's tensors (or of
reshapes of them) has no such code.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class HostReturn:
    """What follows a kernel's device loop: the tensors it returns, in order (`return out, aux`), when
    it only returns them; else the line of the first host statement that does more (`epilogue`)."""

    names: list[str] = field(default_factory=list)
    epilogue: int | None = None


def def_line_of(lines: list[str], first_line: int) -> int:
    """The `def` line of a function whose first line (decorators included) is `first_line`."""
    for offset, text in enumerate(lines[first_line - 1:] if first_line > 0 else []):
        if re.match(r"\s*(async\s+)?def\b", text):
            return first_line + offset
    return first_line


def read_host_return(source_lines: list[str], def_line: int) -> HostReturn:
    """The host code after the last device loop of the kernel whose `def` is at `def_line`."""
    kernel = kernel_definition(source_lines, def_line)
    loops = device_loops(kernel) if kernel is not None else []
    if not loops:
        return HostReturn()
    returned: list[str] = []
    for stmt in kernel.body[loops[-1] + 1:]:
        if isinstance(stmt, ast.Return) and _only_names(stmt.value):
            returned = returned or _names(stmt.value)
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a string or `...`
        return HostReturn(epilogue=stmt.lineno)
    return HostReturn(returned)


def kernel_definition(source_lines: list[str], def_line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The syntax tree of the function whose `def` is at `def_line` of a file; None if the file cannot be
    read again (Helion has parsed it already; that is not this module's concern)."""
    try:
        tree = ast.parse("\n".join(source_lines))
    except SyntaxError:
        return None
    return next((node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and node.lineno == def_line), None)


def device_loops(kernel: ast.FunctionDef | ast.AsyncFunctionDef) -> list[int]:
    """Positions in the kernel's body of its top-level device loops."""
    return [i for i, stmt in enumerate(kernel.body) if isinstance(stmt, ast.For) and is_device_loop(stmt.iter)]


def is_device_loop(iterator: ast.expr) -> bool:
    """`hl.tile(…)` / `hl.grid(…)` (or `tile(…)` imported by name)."""
    if not isinstance(iterator, ast.Call):
        return False
    func = iterator.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in ("tile", "grid")


_SAME_ELEMENTS = ("view", "reshape", "view_as", "reshape_as", "contiguous", "flatten", "squeeze", "unsqueeze")
"""Methods whose result holds a contiguous tensor's elements in the same order (`out.contiguous().view(n, s)`)."""


def _only_names(value: ast.expr | None) -> bool:
    """`out`, `out, aux`, or a reshape of a returned tensor (`out.view(b, m, n)`, `out.contiguous().view(…)`:
    the same elements)."""
    if value is None or isinstance(value, ast.Name):
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        return value.func.attr in _SAME_ELEMENTS and _only_names(value.func.value) \
            and not isinstance(value.func.value, ast.Tuple)
    return isinstance(value, ast.Tuple) and all(_only_names(e) for e in value.elts)


def _names(value: ast.expr | None) -> list[str]:
    """The tensor names of a `return` that `_only_names` accepts, in order (a reshape names its tensor)."""
    if isinstance(value, ast.Name):
        return [value.id]
    if isinstance(value, ast.Call):
        return _names(value.func.value)
    if isinstance(value, ast.Tuple):
        return [name for element in value.elts for name in _names(element)]
    return []


_ZEROS = ("zeros", "zeros_like", "new_zeros")


def zero_filled(source_lines: list[str], def_line: int) -> set[str]:
    """The tensors the kernel's host code creates filled with zeros before its device loop (`out =
    torch.zeros(…)`, `torch.zeros_like(x)`, `x.new_zeros(…)`, `torch.full(…, 0.0)`): what a per-core program
    may read before writing, since Loom's device programs start the tensors the host creates at zero."""
    kernel = kernel_definition(source_lines, def_line)
    loops = device_loops(kernel) if kernel is not None else []
    names = set()
    for stmt in kernel.body[:loops[0]] if loops else []:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.Call):
            call = stmt.value
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
            fill = call.args[1] if name in ("full", "full_like", "new_full") and len(call.args) > 1 else \
                next((k.value for k in call.keywords if k.arg == "fill_value"), None)
            if name in _ZEROS or (isinstance(fill, ast.Constant) and fill.value == 0):
                names.add(stmt.targets[0].id)
                continue
        # anything else that assigns or mutates a name (`out = …`, `out += 1`, `out[0] = 1`, `out.fill_(1)`)
        names -= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)
                  and (isinstance(n.ctx, ast.Store) or _mutated(n, stmt))}
    return names


def _mutated(name: ast.Name, stmt: ast.stmt) -> bool:
    """`name` is subscripted on the left of an assignment or has an in-place method called (`out.fill_(1)`)."""
    for node in ast.walk(stmt):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        if any(isinstance(t, ast.Subscript) and t.value is name for t in targets):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.value is name \
                and node.func.attr.endswith("_"):
            return True
    return False


def grid_offset_line(source_lines: list[str], def_line: int) -> int | None:
    """The line of a top-level device loop that starts elsewhere than 0 (`hl.tile([32, 0], [m, n])`,
    `hl.tile(begin, end)`, `hl.grid(1, n)`), if any: Helion keeps its start out of the Device IR."""
    kernel = kernel_definition(source_lines, def_line)
    for position in device_loops(kernel) if kernel is not None else []:
        call = kernel.body[position].iter  # `hl.tile(begin, end)`: both positional (Helion's signature)
        if len(call.args) >= 2:
            starts = call.args[0].elts if isinstance(call.args[0], (ast.List, ast.Tuple)) else [call.args[0]]
            if not all(isinstance(b, ast.Constant) and b.value == 0 for b in starts):
                return call.lineno
    return None
