"""Compute-role lowering for the TT-Lang backend (see `ttlang_lower.py` for the statements).

CB fronts and backs of the compute role are blocks acquired with `wait()`/`reserve()`. A Loom
local buffer (`Buffer`, e.g. an fp32 accumulator) becomes a compute-owned dataflow buffer that
holds the buffer's current value as its one visible block: a read is `wait()`, a write is
`reserve()`/`store()`/`push()`, and an in-place update (`acc = acc + a @ b`) waits the old
block and reserves the new one, so that buffer gets two slots. TT-Lang lets a compute kernel
pop a waited block only after storing it somewhere, so:
- a value is popped right after its last read (liveness over the loop nest);
- a write whose value is never read is dropped (Loom fills before an overwriting reduction);
- a loop-carried value that is dead after its loop (the running max of an online softmax) is
  written under `if <not the last iteration>`, and a value read after its last write in a loop
  body is copied back into its buffer when the next iteration (or the code after the loop)
  needs it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from loom import ops
from loom.backend import program as P
from loom.backend.ttlang_lower import (
    Acquire,
    Assign,
    Context,
    For,
    If,
    IterCond,
    Release,
    Store,
    core2,
    subst,
)
from loom.errors import UnsupportedError


@dataclass
class OpNode:
    ins: Any
    reads: list[str]  # local buffers read, in operand order
    cb_reads: list[str]  # CB fronts read
    write: str  # destination name
    write_local: bool
    live_after: set[str] = field(default_factory=set)
    guard: IterCond | None = None


@dataclass
class CbNode:
    ins: Any


@dataclass
class LoopNode:
    loop: P.Loop
    body: list
    header: set[str] = field(default_factory=set)
    after: set[str] = field(default_factory=set)
    end: set[str] = field(default_factory=set)
    hoist: list[str] = field(default_factory=list)
    end_fix: dict[str, str] = field(default_factory=dict)  # local -> "always" | "notlast" | "last"


def _io(ins: Any) -> tuple[list[P.Ref], P.Ref, bool]:
    """(inputs, output, output also read) of a compute op."""
    if isinstance(ins, P.Fill):
        return [], ins.dst, False
    if isinstance(ins, P.Matmul):
        return [ins.a, ins.b], ins.acc, ins.accumulate
    if isinstance(ins, P.Binary):
        return [ins.a, ins.b], ins.dst, False
    if isinstance(ins, P.Scalar):
        return [ins.a], ins.dst, False
    if isinstance(ins, (P.Transpose, P.Unary, P.Reduce, P.Mask, P.Copy)):
        return [ins.src], ins.dst, False
    raise UnsupportedError(f"{type(ins).__name__} is no compute op")


class ComputeLowering:
    """One core's compute role, with the local buffers as compute-owned dataflow buffers."""

    def __init__(self, ctx: Context, core: tuple[int, ...]):
        self.ctx, self.core = ctx, core
        self.state: dict[str, str] = {b: "absent" for b in ctx.buffers}
        self.front: dict[str, str] = {}  # cb -> handle of its waited front
        self.back: dict[str, str] = {}  # cb -> handle of its reserved back
        self.pending: dict[str, str] = {}  # cb -> python temporary holding the back's value
        self.read: dict[str, bool] = {}  # handle -> read since acquired

    def where(self) -> str:
        return f"core {self.core}, compute"

    # ---- tree and liveness
    def tree(self, body: Iterable[P.Instr], once: frozenset = frozenset()) -> list:
        """Nodes of `body`; `once` holds the variables of enclosing single-trip loops (always 0)."""
        out = []
        for ins in body:
            if isinstance(ins, P.Loop):
                if ins.count > 0:
                    inner = once | {ins.var} if ins.count == 1 else once - {ins.var}
                    out.append(LoopNode(ins, self.tree(ins.body, inner)))
            elif isinstance(ins, P.CB_OPS):
                if ins.tiles is not None and ins.tiles != self.ctx.cbs[ins.cb].block_tiles:
                    raise UnsupportedError(f"{self.where()}: {type(ins).__name__} of {ins.tiles} tiles on CB "
                                           f"'{ins.cb}'; a dataflow buffer moves whole blocks")
                out.append(CbNode(ins))
            elif isinstance(ins, P.COMPUTE_OPS):
                inputs, output, acc = _io(ins)
                for ref in [*inputs, output]:
                    self._check_whole(ref, ins, once)
                reads = [r.name for r in inputs if r.name in self.ctx.buffers]
                if acc and output.name in self.ctx.buffers:
                    reads.append(output.name)
                cb_reads = [r.name for r in inputs if r.name in self.ctx.cbs]
                out.append(OpNode(ins, list(dict.fromkeys(reads)), cb_reads, output.name,
                                  output.name in self.ctx.buffers))
            else:
                raise UnsupportedError(f"{self.where()}: {type(ins).__name__} in the compute role")
        return out

    def _check_whole(self, ref: P.Ref, ins: Any, once: frozenset) -> None:
        if ref.name not in self.ctx.cbs and ref.name not in self.ctx.buffers:
            raise UnsupportedError(f"{self.where()}: {type(ins).__name__} names '{ref.name}', which is no CB "
                                   "or buffer")
        rows, cols = self.ctx.block_shape(ref.name)

        def at(a: P.Affine) -> P.Affine:
            a = subst(a, core2(self.core))
            return P.Affine(a.const, tuple((n, c) for n, c in a.terms if n not in once))

        row, col = at(ref.row), at(ref.col)
        whole = ref.rows in (None, rows) and ref.cols in (None, cols)
        if row != P.Affine(0) or col != P.Affine(0) or not whole:
            raise UnsupportedError(
                f"{self.where()}: {type(ins).__name__} uses a sub-block of '{ref.name}' ({rows}x{cols} "
                "tiles); TT-Lang blocks are used whole (block indexing is not part of the language)")

    def liveness(self, nodes: list, live_out: set[str]) -> set[str]:
        live = set(live_out)
        for node in reversed(nodes):
            if isinstance(node, OpNode):
                node.live_after = set(live)
                if node.write_local:
                    live.discard(node.write)
                live.update(node.reads)
            elif isinstance(node, LoopNode):
                node.after = set(live)
                end = set(live)
                if node.loop.count == 1:  # a single trip has no back edge
                    node.header = node.end = end
                    live = self.liveness(node.body, end)
                    node.header = set(live)
                    continue
                while True:
                    header = self.liveness(node.body, end)
                    new_end = header | node.after
                    if new_end == end:
                        break
                    end = new_end
                node.header, node.end = header, end
                live = set(header)
        return live

    def drop_dead(self, nodes: list) -> bool:
        """Remove ops whose local result is never read; True if something was removed."""
        changed = False
        for node in list(nodes):
            if isinstance(node, OpNode) and node.write_local and node.write not in node.live_after:
                if node.cb_reads:
                    continue  # keep: its CB inputs must still be read before they are popped
                nodes.remove(node)
                changed = True
            elif isinstance(node, LoopNode):
                changed |= self.drop_dead(node.body)
        return changed

    # ---- loop plans: guards and end-of-body fixes
    def plan(self, nodes: list) -> None:
        for node in nodes:
            if isinstance(node, LoopNode):
                self.plan_loop(node)
                self.plan(node.body)

    def plan_loop(self, node: LoopNode) -> None:
        var, count = self.ctx.var(node.loop.var), node.loop.count
        if count == 1:
            return  # one trip: the body is a plain block
        written = {n.write for n in _ops(node.body) if n.write_local}
        read = {r for n in _ops(node.body) for r in n.reads}
        node.hoist = sorted(b for b in node.header if b in read and b not in written)
        for b in sorted(written):
            cont, exit_ = b in node.header, b in node.after
            if cont == exit_:
                if cont and self._read_after_last_write(node.body, b):
                    node.end_fix[b] = "always"
                continue
            last_write = None  # index of the top-level op that writes b last (None: a nested loop does)
            for i, n in enumerate(node.body):
                if isinstance(n, OpNode) and n.write_local and n.write == b:
                    last_write = i
                elif isinstance(n, LoopNode) and b in {m.write for m in _ops(n.body) if m.write_local}:
                    last_write = None
            if last_write is not None and not self._reads_from(node.body[last_write + 1:], b):
                node.body[last_write].guard = IterCond(var, count, last=exit_)
            elif self._read_after_last_write(node.body, b):
                node.end_fix[b] = "last" if exit_ else "notlast"
            else:
                raise UnsupportedError(
                    f"{self.where()}: local buffer '{b}' is written inside a nested loop of loop "
                    f"'{node.loop.var}' and its value is needed only {'after' if exit_ else 'within'} that "
                    "loop; "
                    "TT-Lang cannot discard a dataflow-buffer block without storing it")

    def _reads_from(self, nodes: list, b: str) -> bool:
        return any(b in n.reads for n in _ops(nodes))

    def _read_after_last_write(self, nodes: list, b: str) -> bool:
        flat = list(_ops(nodes))
        last = max((i for i, n in enumerate(flat) if n.write_local and n.write == b), default=-1)
        return any(b in n.reads for n in flat[last + 1:])

    # ---- emission
    def lower(self, body: Iterable[P.Instr]) -> list:
        nodes = self.tree(body)
        while True:
            self.liveness(nodes, set())
            if not self.drop_dead(nodes):
                break
        self.plan(nodes)
        out: list = []
        self.seq(nodes, out)
        return out

    def seq(self, nodes: list, out: list) -> None:
        for i, node in enumerate(nodes):
            if isinstance(node, OpNode):
                self.op(node, nodes[i + 1:], out)
            elif isinstance(node, CbNode):
                self.cb(node.ins, out)
            else:
                self.loop(node, out)

    def cb(self, ins: Any, out: list) -> None:
        ctx, cb = self.ctx, ins.cb
        if isinstance(ins, P.CbWait):
            h = ctx.handle(cb)
            self.front[cb] = h
            self.read[h] = False
            out.append(Acquire(ctx.dfb(cb), "wait", h))
        elif isinstance(ins, P.CbPop):
            h = self.front.pop(cb, None)
            if h is None:
                raise UnsupportedError(f"{self.where()}: CbPop of '{cb}' without CbWait")
            if not self.read.get(h):
                raise UnsupportedError(
                    f"{self.where()}: compute pops CB '{cb}' without reading it; a TT-Lang compute kernel "
                    "must use a waited block before popping it")
            out.append(Release(h, "pop"))
        elif isinstance(ins, P.CbReserve):
            h = ctx.handle(cb)
            if cb in self.front and self.front[cb] == h:
                h = ctx.next_handle(cb)
            self.back[cb] = h
            out.append(Acquire(ctx.dfb(cb), "reserve", h))
        else:
            h = self.back.pop(cb, None)
            if h is None:
                raise UnsupportedError(f"{self.where()}: CbPush of '{cb}' without CbReserve")
            if cb in self.pending:
                out.append(Store(h, self.pending.pop(cb)))
            out.append(Release(h, "push"))

    def value(self, name: str) -> str:
        """The expression of an operand: a local's held block or a CB front."""
        if name in self.ctx.buffers:
            return self.ctx.handle(name)
        h = self.front.get(name)
        if h is None:
            raise UnsupportedError(f"{self.where()}: reads CB '{name}' without CbWait")
        return h

    def op(self, node: OpNode, rest: list, out: list) -> None:
        ctx, ins = self.ctx, node.ins
        stmts: list = []
        for b in node.reads:
            if self.state[b] == "absent":
                raise UnsupportedError(f"{self.where()}: {type(ins).__name__} reads local buffer '{b}' "
                                       "before any write to it")
            if self.state[b] == "present":
                if node.guard is not None:
                    raise UnsupportedError(
                        f"{self.where()}: local buffer '{b}' is read for the first time by a write that only "
                        f"the {'last' if node.guard.last else 'non-last'} iterations need; TT-Lang cannot "
                        "drop it unread")
                stmts.append(Acquire(ctx.dfb(b), "wait", ctx.handle(b)))
                self.state[b] = "held"
        expr = self.expr(ins)
        for b in node.reads:
            self.read[ctx.handle(b)] = True
        if node.guard is None:
            for c in node.cb_reads:
                self.read[self.value(c)] = True
        releases: list = []
        if node.write_local:
            d = node.write
            nh = ctx.next_handle(d)
            if self.state[d] == "held":
                ctx.in_place.add(d)
            stmts += [Acquire(ctx.dfb(d), "reserve", nh), Store(nh, expr), Release(nh, "push")]
            if self.state[d] == "held":
                releases.append(Release(ctx.handle(d), "pop"))
            self.state[d] = "present"
        else:
            d = node.write
            h = self.back.get(d)
            if h is None:
                raise UnsupportedError(f"{self.where()}: {type(ins).__name__} writes CB '{d}' without "
                                       "CbReserve")
            if self._writes_before_push(rest, d):
                tmp = ctx.names.get("tmp", d, "_val")
                stmts.append(Assign(tmp, expr))
                self.pending[d] = tmp
            else:
                self.pending.pop(d, None)
                stmts.append(Store(h, expr))
        for b in sorted(self.state):
            overwritten = node.write_local and b == node.write
            if self.state[b] == "held" and b not in node.live_after and not overwritten:
                releases.append(Release(ctx.handle(b), "pop"))
                self.state[b] = "absent"
        if node.guard is None:
            out += stmts + releases
            return
        if node.write_local:
            self.state[node.write] = "guarded"
        out.append(If(node.guard, tuple(stmts + releases), tuple(releases)))

    def _writes_before_push(self, rest: list, cb: str) -> bool:
        for n in rest:
            if isinstance(n, CbNode) and isinstance(n.ins, P.CbPush) and n.ins.cb == cb:
                return False
            if isinstance(n, OpNode) and not n.write_local and n.write == cb:
                return True
            if isinstance(n, LoopNode):
                return True
        return True

    def loop(self, node: LoopNode, out: list) -> None:
        ctx = self.ctx
        if node.loop.count == 1:  # a plain block: values flow through as they are
            body: list = []
            self.seq(node.body, body)
            out.append(For(ctx.var(node.loop.var), 1, tuple(body)))
            return
        written = {n.write for n in _ops(node.body) if n.write_local}
        for b in sorted(self.state):  # a held value the loop overwrites goes back into its buffer
            if self.state[b] == "held" and b in written and b in node.header:
                out += self.represent(b)
        for b in node.hoist:  # read-only inside the loop: wait once, outside
            if self.state[b] == "present":
                out.append(Acquire(ctx.dfb(b), "wait", ctx.handle(b)))
                self.state[b] = "held"
        through = {b for b, s in self.state.items() if s == "held"}  # held across the whole loop
        for b, s in self.state.items():
            if s == "present" and b not in node.header:
                raise UnsupportedError(f"{self.where()}: local buffer '{b}' holds a dead value before loop "
                                       f"'{node.loop.var}'")
            if s == "absent" and b in node.header:
                raise UnsupportedError(f"{self.where()}: loop '{node.loop.var}' reads local buffer '{b}' "
                                       "before any write to it")
        body = []
        self.seq(node.body, body)
        var, count = ctx.var(node.loop.var), node.loop.count
        for b, when in sorted(node.end_fix.items()):
            if self.state[b] != "held":
                continue
            fix = self.represent(b)
            if when == "always":
                body += fix
            else:
                body.append(If(IterCond(var, count, last=(when == "last")), tuple(fix),
                               (Release(ctx.handle(b), "pop"),)))
            self.state[b] = "fixed"
        out.append(For(var, count, tuple(body)))
        for b in sorted(self.state):
            s = self.state[b]
            if s == "held" and b in through:
                if b not in node.after:
                    out.append(Release(ctx.handle(b), "pop"))
                    self.state[b] = "absent"
            elif s == "held":
                raise UnsupportedError(f"{self.where()}: local buffer '{b}' is still acquired at the end of "
                                       f"loop '{node.loop.var}'")
            else:
                self.state[b] = "present" if b in node.after else "absent"

    def represent(self, b: str) -> list:
        """Copy a held value back into its buffer (`with b.wait() as v, b.reserve() as n: n.store(v)`)."""
        ctx = self.ctx
        ctx.in_place.add(b)
        nh = ctx.next_handle(b)
        self.state[b] = "present"
        return [Acquire(ctx.dfb(b), "reserve", nh), Store(nh, ctx.handle(b)), Release(nh, "push"),
                Release(ctx.handle(b), "pop")]

    # ---- expressions
    def template(self, form: str, name: str) -> str:
        """The op table's TT-Lang expression of `name`."""
        return _template(self.where(), form, name)

    def shape(self, name: str) -> str:
        r, c = self.ctx.block_shape(name)
        return f"({r}, {c})"

    def expr(self, ins: Any) -> str:
        v = self.value
        if isinstance(ins, P.Fill):
            return f"ttl.block.fill({_float(ins.value)}, shape={self.shape(ins.dst.name)})"
        if isinstance(ins, P.Matmul):
            b = v(ins.b.name)
            prod = f"{v(ins.a.name)} @ " + (f"ttl.block.transpose({b})" if ins.transpose_b else b)
            if not ins.accumulate:
                return prod
            acc = ins.acc.name
            if acc in self.ctx.buffers:
                return f"{v(acc)} + {prod}"
            if acc not in self.pending:
                raise UnsupportedError(f"{self.where()}: Matmul accumulates into CB '{acc}' before anything "
                                       "was written to its reserved block")
            return f"{self.pending[acc]} + {prod}"
        if isinstance(ins, P.Transpose):
            return f"ttl.block.transpose({v(ins.src.name)})"
        if isinstance(ins, P.Binary):
            a, b = v(ins.a.name), v(ins.b.name)
            if ins.repeat != 1:
                raise UnsupportedError(f"{self.where()}: Binary repeats '{ins.b.name}' {ins.repeat} times down the "
                                       "rows of its first operand (a leading dimension it lacks); TT-Lang's "
                                       "ttl.block.broadcast takes one-tile-wide blocks only")
            if ins.bcast != "none":
                rows, cols = self.ctx.block_shape(ins.b.name)
                dims = {"col": [-1], "row": [-2], "scalar": [-2, -1]}[ins.bcast]
                if (-1 in dims and cols != 1) or (-2 in dims and rows != 1):
                    raise UnsupportedError(
                        f"{self.where()}: Binary broadcasts the first {ins.bcast} of '{ins.b.name}' "
                        f"({rows}x{cols} tiles); ttl.block.broadcast needs a block one tile wide along the "
                        "broadcast dimension")
                b = f"ttl.block.broadcast({b}, dims={dims}, shape={self.shape(ins.dst.name)})"
            return self.template("binary", ins.op).format(a=a, b=b)
        if isinstance(ins, P.Scalar):
            a, c = v(ins.a.name), f"ttl.block.fill({_float(ins.value)}, shape={self.shape(ins.a.name)})"
            return self.template("binary", ins.op).format(a=c, b=a) if ins.reverse else \
                self.template("binary", ins.op).format(a=a, b=c)
        if isinstance(ins, P.Unary):
            expr = self.template("unary", ins.op).format(a=v(ins.src.name))
            if ins.scale != 1.0:
                expr = f"{expr} * ttl.block.fill({_float(ins.scale)}, shape={self.shape(ins.src.name)})"
            return expr
        if isinstance(ins, P.Reduce):
            rows, _ = self.ctx.block_shape(ins.src.name)
            drows, dcols = self.ctx.block_shape(ins.dst.name)
            if (drows, dcols) != (rows, 1):
                raise UnsupportedError(f"{self.where()}: Reduce into '{ins.dst.name}' ({drows}x{dcols} "
                                       f"tiles) from {rows} tile rows; TT-Lang's row reduction yields "
                                       f"{rows}x1 tiles")
            red = self.template("reduce", ins.op).format(a=v(ins.src.name), shape=f"({rows}, 1)")
            if ins.scale != 1.0:
                red += f" * ttl.block.fill({_float(ins.scale)}, shape=({rows}, 1))"
            return red
        if isinstance(ins, P.Copy):
            return v(ins.src.name)
        if isinstance(ins, P.Mask):
            self.template("mask", "mask")  # refused with the op table's reason
        raise UnsupportedError(f"{self.where()}: {type(ins).__name__} has no TT-Lang compute form")


def _template(where: str, form: str, name: str) -> str:
    op = ops.lookup(form, name)
    if op.ttlang is None:
        raise UnsupportedError(f"{where}: `{name}` has no TT-Lang form ({op.no_ttlang})")
    return op.ttlang


def _ops(nodes: list) -> Iterable[OpNode]:
    for n in nodes:
        if isinstance(n, OpNode):
            yield n
        elif isinstance(n, LoopNode):
            yield from _ops(n.body)


def _float(x: float) -> str:
    if math.isinf(x):
        return 'float("-inf")' if x < 0 else 'float("inf")'
    if math.isnan(x):
        return 'float("nan")'
    return repr(float(x))
