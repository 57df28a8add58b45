"""The host code after a kernel's device loop: Loom compiles the loop, not torch code run after it.

Helion runs the statements after the last `for … in hl.tile(…)` on the host (`return torch.sum(loss)`,
`loss = loss / n` then `return loss`). Loom's per-core programs end with the loop, so such a kernel
would return the loop's tensors instead: it is refused at the first such statement.
"""

from __future__ import annotations

import ast

from loom.errors import SourceLocation, UnsupportedError


def check_nothing_after_the_loop(source_lines: list[str], def_line: int, source_file: str) -> list[str]:
    """Refuse a kernel (its `def` at `def_line`) whose body after its last device loop does more than
    `return` names (`return out`, `return out, aux`) or reshapes of them; the names it returns, in order
    (empty where the kernel cannot be read again)."""
    try:
        tree = ast.parse("\n".join(source_lines))
    except SyntaxError:
        return []  # Helion has parsed it already; a file Loom cannot parse again is not this check's concern
    kernel = next((node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and node.lineno == def_line), None)
    if kernel is None:
        return []
    loops = [i for i, stmt in enumerate(kernel.body) if isinstance(stmt, ast.For) and _is_device_loop(stmt.iter)]
    if not loops:
        return []
    returned: list[str] = []
    for stmt in kernel.body[loops[-1] + 1:]:
        if isinstance(stmt, ast.Return) and _only_names(stmt.value):
            returned = returned or _names(stmt.value)
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a string or `...`
        code = source_lines[stmt.lineno - 1] if 0 < stmt.lineno <= len(source_lines) else ""
        raise UnsupportedError(
            f"host code after the device loop (`{code.strip()}`) is not compiled by Loom: expected the kernel to "
            "end with `return` of the tensors its loop writes (run the rest in torch on the kernel's result)",
            SourceLocation(source_file, stmt.lineno, code))
    return returned


def _is_device_loop(iterator: ast.expr) -> bool:
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
