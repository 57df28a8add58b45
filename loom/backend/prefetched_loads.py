"""Prefetched loads: the writer reads the next block before it waits for the block to store.

The writer engine also issues loads (every other operand, `loom.mapping.engines`). Where a loop
body loads a block and then stores one (an elementwise kernel: `out[t] = f(x[t], y[t])`, `y` on
the writer), written plainly the load of iteration i + 1 comes after the store of iteration i,
whose wait holds the writer until compute has finished block i: that read's DRAM latency never
overlaps compute, so a double-buffered input is read as if it had one slot. When every block the
body loads has two slots or more, the writer issues the next iteration's reads first and completes
them after its store, as a hand-written kernel prefetches:

    reserve read(0) barrier push | reserve read(i+1) <the body's waits and stores of i> barrier push
    | ... | <the body of n-1>

The compute engine needs block i + 1 only after it has finished block i, so pushing it after the
wait for block i delays nothing, and the store of block i is issued as soon as block i is ready.
"""

from __future__ import annotations

from loom.backend.deferred_stores import substitute
from loom.backend.program import Affine, Barrier, CbPush, CbReserve, CbWait, DramRead, Instr, Loop, walk


def prefetch_loads(writer: list[Instr], cbs: set[str]) -> list[Instr]:
    """`writer` with the loads into `cbs` (blocks of two slots or more) that open a loop body issued one
    iteration ahead (module docstring)."""
    out: list[Instr] = []
    for ins in writer:
        if isinstance(ins, Loop):
            body = prefetch_loads(list(ins.body), cbs)
            out += _rotated(Loop(ins.var, ins.count, tuple(body)), cbs)
        else:
            out.append(ins)
    return out


def _rotated(loop: Loop, cbs: set[str]) -> list[Instr]:
    """The loop with its opening loads issued one iteration ahead, or unchanged when it has none, when
    nothing after them waits (nothing to overlap) or its trip count is not a number of at least two."""
    issue, complete, rest = _opening_loads(list(loop.body), cbs)
    if not issue or not isinstance(loop.count, int) or loop.count < 2:
        return [loop]
    if not any(isinstance(i, CbWait) for i in walk(rest)):
        return [loop]
    var = loop.var
    first = substitute(issue, var, 0) + substitute(complete, var, 0)
    ahead = substitute(issue, var, Affine.var(var) + 1)
    steady = Loop(var, loop.count - 1, tuple(ahead + rest + substitute(complete, var, Affine.var(var) + 1)))
    return first + [steady] + substitute(rest, var, loop.count - 1)


def _opening_loads(body: list[Instr], cbs: set[str]) -> tuple[list[Instr], list[Instr], list[Instr]]:
    """The DRAM loads that open `body`, each `reserve; read…; barrier(reads); push` into one of `cbs`:
    (their reserves and reads, their barrier and pushes, the rest of the body). None when the body
    does not open with one, or when the rest touches one of their buffers again."""
    issue: list[Instr] = []
    pushes: list[Instr] = []
    at = 0
    while at < len(body) and isinstance(body[at], CbReserve) and body[at].cb in cbs:
        cb = body[at].cb
        end = at + 1
        while end < len(body) and isinstance(body[end], DramRead) and body[end].cb == cb:
            end += 1
        if end == at + 1 or end + 1 >= len(body) or body[end] != Barrier("reads") or body[end + 1] != CbPush(cb):
            break
        issue += body[at:end]
        pushes.append(body[end + 1])
        at = end + 2
    rest = body[at:]
    loaded = {i.cb for i in pushes}
    if any(getattr(i, "cb", None) in loaded for i in walk(rest)):
        return [], [], body
    return issue, ([Barrier("reads")] + pushes if pushes else []), rest
