"""Live tiles: the ops around a causal mask compute only the tiles the mask does not kill whole.

In a loop to the enclosing tile's end (`hl.tile(0, tile_m.end)`), the key block on the diagonal is
masked above it: with 256 x 256 blocks, 28 of its 64 score tiles are -inf at every element. Every
op on the scores in that iteration can skip those tiles when nothing reads them but consumers that
ignore them:

    Fill s; Matmul(q, kT -> s); Unary(scale, s)        producers: their dead tiles are masked anyway
    Mask(s, fill=-inf)                                 dead tiles hold -inf
    Reduce(max, s)                                     -inf is max's identity: skipped
    Binary(sub, s, m, bcast=col); Unary(exp, s)        -inf - m = -inf, exp(-inf) = 0
    Reduce(sum, s); Copy(s -> p)                       0 is sum's identity; p's dead tiles hold 0
    Matmul(p, v -> acc)                                a product with a zero tile: skipped

Each such op gets a `Live` (`loom.backend.program`): the mask's half-planes, which say per iteration
which tiles of its block hold a kept element. The value a dead tile holds is followed op by op
(`_dead_value`); a consumer that would read one and does not ignore that value (a max over zeros, a
product with -inf, an op the rules below do not know) leaves the loop body as it was. So does a
dead buffer read after the loop or before its next write. A backend that computes every tile gets
the same values (TT-Lang does); the simulator prices the live tiles and poisons the dead ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import replace

import numpy as np

from loom import ops
from loom.backend.program import (
    COMPUTE_OPS,
    Binary,
    Buffer,
    Copy,
    Fill,
    Instr,
    Live,
    Loop,
    Mask,
    Matmul,
    Reduce,
    Ref,
    Scalar,
    Trips,
    Unary,
    operands,
    walk,
)

Shape = tuple[int, int]


def restrict_to_live_tiles(compute: Iterable[Instr], buffers: Iterable[Buffer],
                           chosen: Callable[[str], bool]) -> tuple[Instr, ...]:
    """`compute` (a core's compute role) with the ops around each causal mask on live tiles (module
    docstring), in the loops to a tile's end whose variable `chosen` accepts (the schedule's `live`
    knobs); `buffers` are the core's local buffers (CBs are left alone)."""
    role = list(compute)
    return tuple(_restricted(role, {b.name: (b.rows, b.cols) for b in buffers}, role, chosen))


def _restricted(body: list[Instr], shapes: dict[str, Shape], role: list[Instr],
                chosen: Callable[[str], bool]) -> list[Instr]:
    out: list[Instr] = []
    for ins in body:
        if isinstance(ins, Loop):
            inner = _restricted(list(ins.body), shapes, role, chosen)
            if isinstance(ins.count, Trips) and chosen(ins.var):  # a loop to a tile's end: its diagonal is masked
                inner = _live_body(inner, shapes, _read_after(role, ins))
            ins = Loop(ins.var, ins.count, tuple(inner))
        out.append(ins)
    return out


def _read_after(role: list[Instr], loop: Loop) -> set[str]:
    """The buffers whose next use after `loop` may be a read: the first compute op outside it that touches
    them, in program order from the loop's end and around again from the role's start (an enclosing loop
    runs the ops before it next), reads them."""
    flat = list(walk(role))
    start = next(n for n, i in enumerate(flat) if i is loop)
    end = start + 1 + sum(1 for _ in walk(loop.body))
    rest = [i for i in flat[end:] + flat[:start] if isinstance(i, COMPUTE_OPS)]
    return {name for name in {r.name for i in rest for r in _io(i)[0]} if _read_first(rest, name)}


def _live_body(body: list[Instr], shapes: dict[str, Shape], read_after: set[str]) -> list[Instr]:
    for at, ins in enumerate(body):
        if isinstance(ins, Mask) and ins.data is None and ins.src == ins.dst and _whole(ins.dst, shapes):
            live = _live_ops(body, at, shapes, read_after)
            if live:
                return [_on_live(i, ins, live[n]) if n in live else i for n, i in enumerate(body)]
    return body


def _live_ops(body: list[Instr], at: int, shapes: dict[str, Shape], read_after: set[str]) -> dict[int, str]:
    """The ops of `body` that may run on live tiles around the mask at `at`, each with the buffer whose
    block's tiles it skips; empty when some reader of a dead tile does not ignore it."""
    mask = body[at]
    block = shapes[mask.dst.name]
    live = {at: mask.dst.name}
    for n in range(at - 1, -1, -1):  # producers: whatever they leave in the dead tiles is masked
        ins = body[n]
        if not isinstance(ins, COMPUTE_OPS) or mask.dst.name not in {r.name for r in _io(ins)[0] + _io(ins)[1]}:
            continue
        if not _produces(ins, mask.dst):
            break
        live[n] = mask.dst.name
    dead = {mask.dst.name: mask.fill}
    for n in range(at + 1, len(body)):
        ins = body[n]
        if not isinstance(ins, COMPUTE_OPS):
            continue
        reads, writes = _io(ins)
        read_dead = [r for r in reads if r.name in dead]
        if not read_dead:
            for w in writes:
                if w.name in dead and not _whole(w, shapes):
                    return {}
                dead.pop(w.name, None)
            continue
        if len(read_dead) > 1 or not _whole(read_dead[0], shapes):
            return {}
        value = _dead_value(ins, read_dead[0], dead[read_dead[0].name])
        if value is None:
            return {}
        if isinstance(ins, (Reduce, Matmul)):  # the dead tiles are skipped; the output is whole
            live[n] = read_dead[0].name
            for w in writes:
                dead.pop(w.name, None)
            continue
        if not _whole(ins.dst, shapes) or shapes[ins.dst.name] != block:
            return {}
        live[n] = ins.dst.name
        dead[ins.dst.name] = value
    if any(name in read_after or _read_first(body, name) for name in dead):
        return {}
    return live


def _produces(ins: object, block: Ref) -> bool:
    """Whether `ins` writes `block` tile for tile (its dead tiles then need not be computed)."""
    if isinstance(ins, Matmul):
        return ins.acc == block and block.name not in (ins.a.name, ins.b.name)
    return isinstance(ins, (Fill, Unary, Copy, Scalar, Binary)) and ins.dst == block


def _dead_value(ins: object, ref: Ref, value: float) -> float | None:
    """What a dead tile of `ref` holding `value` holds after `ins` (for a reduction or a matmul, that
    `ins` may skip it: any float), or None when `ins` must read it."""
    if isinstance(ins, Reduce):
        return value if ins.src == ref and ops.lookup("reduce", ins.op).identity == value else None
    if isinstance(ins, Matmul):
        return value if ins.a == ref and value == 0.0 else None
    if isinstance(ins, Copy):
        return value
    with np.errstate(all="ignore"):
        if isinstance(ins, Unary):
            out = float(ops.lookup("unary", ins.op).numpy(np.full((1, 1), value, np.float32))[0, 0]) * ins.scale
        elif isinstance(ins, Scalar):
            fn, a, b = ops.lookup("binary", ins.op).numpy, np.float32(value), np.float32(ins.value)
            out = float(fn(b, a) if ins.reverse else fn(a, b))
        elif isinstance(ins, Binary) and ins.a == ref:  # the other operand is finite
            out = value if ins.op in ("add", "sub") and math.isinf(value) else \
                0.0 if ins.op in ("mul", "div") and value == 0.0 else math.nan
        else:
            return None
    return None if math.isnan(out) else out


def _read_first(body: list[Instr], name: str) -> bool:
    """Whether the first compute op of `body` that touches `name` reads it (at the top of a loop body: a
    dead tile would reach the next iteration)."""
    for ins in body:
        if isinstance(ins, COMPUTE_OPS):
            reads, writes = _io(ins)
            if name in {r.name for r in reads}:
                return True
            if name in {w.name for w in writes}:
                return False
    return False


def _io(ins: object) -> tuple[tuple[Ref, ...], tuple[Ref, ...]]:
    """(what `ins` reads, what it writes); an accumulating matmul reads its accumulator."""
    reads, writes = operands(ins)
    if isinstance(ins, Matmul) and ins.accumulate:
        reads += (ins.acc,)
    return reads, writes


def _whole(ref: Ref, shapes: dict[str, Shape]) -> bool:
    """Whether `ref` is a whole local buffer."""
    return (ref.name in shapes and not ref.row.terms and not ref.col.terms and ref.row.const == 0
            and ref.col.const == 0 and ref.rows in (None, shapes[ref.name][0])
            and ref.cols in (None, shapes[ref.name][1]))


def _on_live(ins: object, mask: Mask, buffer: str) -> object:
    return replace(ins, live=Live(buffer, mask.row_start, mask.col_start, mask.keep))


__all__ = ["restrict_to_live_tiles"]
