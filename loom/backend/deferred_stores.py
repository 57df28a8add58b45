"""Deferred store completion: the writer stops waiting for its stores to land.

The writer engine also issues loads (every other operand, `loom.mapping.engines`). Written plainly,
each store is `wait; write; barrier; pop`, and the barrier holds that engine until the block has
landed in DRAM, so the next block's loads queue behind the store and the store never overlaps
compute, however many slots its buffer has. When the stored buffer has two slots or more, the
writer instead issues the write and moves on; the barrier on its writes and the pop of that block
come just before it waits for the next block, and once more at the end:

    wait(0) write(0) | wait-writes pop wait(1) write(1) | ... | wait-writes pop

The first wait has no earlier block to free: the loop nest around it is peeled (its first
iteration written out with the loop variable at 0, the rest a loop of one trip fewer), which is
what a hand-written kernel does with `if (i > 0)`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from loom.backend.program import Affine, Barrier, CbPop, CbWait, Instr, Loop, walk
from loom.errors import UnsupportedError


def defer_store_pops(writer: list[Instr], cbs: set[str]) -> list[Instr]:
    """`writer` with every store from one of `cbs` completed lazily (module docstring)."""
    for cb in sorted(cbs):
        body, waited = _deferred(writer, cb, first=True)
        writer = body + ([Barrier("writes"), CbPop(cb, waited.tiles)] if waited else [])
    return writer


def _deferred(body, cb: str, first: bool) -> tuple[list[Instr], CbWait | None]:
    """The body with each pop of `cb` moved before the next wait (none before the first wait when
    `first`), and the last wait seen (None if it never waits)."""
    out: list[Instr] = []
    last: CbWait | None = None
    for ins in body:
        if isinstance(ins, Loop) and not isinstance(ins.count, int) and _waits(ins.body, cb):
            raise UnsupportedError("a store inside a loop to an enclosing tile's end or from its start is not "
                                   "supported yet; expected stores after that loop")
        if isinstance(ins, Loop) and isinstance(ins.count, int) and ins.count > 0 and _waits(ins.body, cb):
            if first:  # peel: iteration 0 waits first, the others free the block before them
                head, last = _deferred(substitute(ins.body, ins.var, 0), cb, True)
                out += head
                if ins.count > 1:
                    rest, _ = _deferred(substitute(ins.body, ins.var, Affine.var(ins.var) + 1), cb, False)
                    out.append(Loop(ins.var, ins.count - 1, tuple(rest)))
                first = False
            else:
                inner, last = _deferred(ins.body, cb, False)
                out.append(dataclasses.replace(ins, body=tuple(inner)))
            continue
        if isinstance(ins, CbPop) and ins.cb == cb:
            continue  # freed before the next wait instead
        if isinstance(ins, CbWait) and ins.cb == cb:
            if not first:
                out += [Barrier("writes"), CbPop(cb, last.tiles if last else ins.tiles)]
            first, last = False, ins
        out.append(ins)
    return out, last


def _waits(body, cb: str) -> bool:
    return any(isinstance(i, CbWait) and i.cb == cb for i in walk(body))


def substitute(body, var: str, value) -> list[Instr]:
    return [_subst_value(ins, var, value) for ins in body]


def _subst_value(value: Any, var: str, replacement) -> Any:
    """`value` (an instruction, index, tuple or reference) with loop variable `var` replaced."""
    if isinstance(value, Affine):
        return value.subst(var, replacement)
    if isinstance(value, tuple):
        return tuple(_subst_value(v, var, replacement) for v in value)
    if isinstance(value, Loop) and value.var == var:
        return value  # an inner loop of the same name shadows it
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _subst_value(getattr(value, f.name), var, replacement) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **changes)
    return value
