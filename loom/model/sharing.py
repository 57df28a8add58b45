"""Shared subtrees: the simplifying helpers of `loom.model.expr` answer from a table of the nodes they built.

The models of a kernel's candidates are mostly the same subtrees (the compute costs, the loads two
candidates move alike); building them over one table (`loom.model.models`) makes each a single object,
built once, and lets every later pass over the models (the bound, the solver's lowering) meet it once.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator

LEAVES: dict[type, str] = {}  # node class -> its value field, for the nodes keyed by value (`loom.model.expr`)
_table: dict | None = None  # the node table `sharing` installs; None: every helper call builds anew


@contextlib.contextmanager
def sharing(table: dict) -> Iterator[None]:
    """Within it, a simplifying helper called again with the same operands and label returns the node it
    returned before: the same objects, or leaves (`Const`, `Var`, `Knob`) of equal value and label. The
    table keeps every operand it has seen alive, so an object's id stays its own while it is a key."""
    global _table
    outer, _table = _table, table
    try:
        yield
    finally:
        _table = outer


def _operand_key(x: object) -> object:
    kind = type(x)
    field = LEAVES.get(kind)
    if field is not None:
        return kind, getattr(x, field), x.label  # type: ignore[attr-defined]
    if kind is int or kind is float or kind is str:
        return kind, x  # a constant, a throughput, a knob's name
    return id(x)


def shared(helper):
    """`helper`, answering from the `sharing` table when one is installed."""

    @functools.wraps(helper)
    def answer(*operands, label: str | None = None):
        table = _table
        if table is None:
            return helper(*operands, label=label)
        key = (helper, label, *map(_operand_key, operands))
        hit = table.get(key)
        if hit is None:
            hit = table[key] = (helper(*operands, label=label), operands)
        return hit[0]

    return answer
