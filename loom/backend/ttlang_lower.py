"""Per-core lowering of a Loom `Program` to TT-Lang statements (shared statements, pipes, data movement).

Every core of the program is lowered on its own, with its coordinates substituted, into a small
statement tree (`For`, `If`, `Acquire`/`Release` of dataflow-buffer blocks, copies, pipe sends
and receives, `Store`s of block expressions). `ttlang_spmd.py` then folds the per-core trees
into the one SPMD body TT-Lang runs on every node.

Data movement (reader and writer roles):
- `CbReserve`/`CbPush` and `CbWait`/`CbPop` become `dfb.reserve()`/`push()` and
  `dfb.wait()`/`pop()`; `DramRead`/`DramWrite` become `ttl.copy` of a tensor slice (in tiles) to
  or from the block, waited at once (Loom's `Barrier` follows every DRAM transfer of a split
  program, so nothing is lost).
- A `Multicast` becomes `ttl.copy(block, pipe)`: one `ttl.Pipe` per multicast group (two when
  the sender sits inside a 2-D rectangle, because a pipe's destinations are a rectangle that
  excludes its source). The receivers' half of Loom's handshake (`SemSet(valid, 0)`,
  `SemInc(ready, core=sender)`, `SemWait(valid, 1)`) becomes `ttl.copy(pipe, block)`; the
  sender's `SemWait(ready)`/`SemSet(valid)` disappear: TT-Lang's compiler allocates the
  semaphores of a pipe.

The compute role is lowered in `ttlang_compute.py`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from loom.backend import program as P
from loom.errors import UnsupportedError

NUM = {"kind": "num"}
BODY = {"kind": "body"}
NODE = {"kind": "node"}
NODES = {"kind": "nodes"}


# --- statements ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class For:
    var: str
    count: Any = field(metadata=NUM)
    body: tuple = field(default=(), metadata=BODY)
    note: str = ""


@dataclass(frozen=True)
class IterCond:
    """True in every iteration of loop `var` but the last (`last=False`), or only in the last."""

    var: str
    count: Any = field(metadata=NUM)
    last: bool = False


@dataclass(frozen=True)
class CoreCond:
    """True on the cores in `cores` (out of the cores `universe` that reach the test)."""

    cores: frozenset
    universe: frozenset


@dataclass(frozen=True)
class If:
    cond: Any = field(metadata=NODE)
    then: tuple = field(default=(), metadata=BODY)
    orelse: tuple = field(default=(), metadata=BODY)
    note: str = ""


@dataclass(frozen=True)
class Acquire:
    """`handle = dfb.reserve()` (kind "reserve") or `handle = dfb.wait()` (kind "wait")."""

    dfb: str
    kind: str
    handle: str


@dataclass(frozen=True)
class Release:
    """`handle.push()` (kind "push") or `handle.pop()` (kind "pop")."""

    handle: str
    kind: str


@dataclass(frozen=True)
class With:
    items: tuple = field(default=(), metadata=NODES)
    body: tuple = field(default=(), metadata=BODY)


@dataclass(frozen=True)
class CopyIn:
    """`ttl.copy(tensor[rows, cols], handle).wait()`; `start` holds the first tile row and column."""

    tensor: str
    start: Any = field(metadata=NUM)
    size: tuple = (1, 1)
    handle: str = ""


@dataclass(frozen=True)
class CopyOut:
    handle: str
    tensor: str
    start: Any = field(metadata=NUM)
    size: tuple = (1, 1)


@dataclass(frozen=True)
class Send:
    """`ttl.copy(handle, <net>_pipes[pipe]).wait()`: the multicast sender."""

    handle: str
    net: str
    pipe: Any = field(metadata=NUM)


@dataclass(frozen=True)
class Recv:
    """`ttl.copy(<net>_pipes[pipe], handle).wait()`: a multicast receiver."""

    net: str
    pipe: Any = field(metadata=NUM)
    handle: str = ""


@dataclass(frozen=True)
class Store:
    handle: str
    expr: str


@dataclass(frozen=True)
class Assign:
    var: str
    expr: str


@dataclass(frozen=True)
class Comment:
    text: str


# --- program-wide facts -------------------------------------------------------------------------


@dataclass(frozen=True)
class PipeSpec:
    """One TT-Lang pipe: `src` core and the inclusive destination rectangle `lo..hi`."""

    src: tuple[int, int]
    lo: tuple[int, int]
    hi: tuple[int, int]


@dataclass
class Net:
    """The pipes that carry one CB's multicasts (one `ttl.PipeNet`)."""

    cb: str
    tensors: set[str] = field(default_factory=set)
    pipes: list[PipeSpec] = field(default_factory=list)
    valid_sems: set[str] = field(default_factory=set)
    ready_sems: set[str] = field(default_factory=set)

    def index(self, spec: PipeSpec) -> int:
        return self.pipes.index(spec)

    def receiving(self, core: tuple[int, int]) -> int:
        """Index of the pipe whose destinations include `core`."""
        for i, p in enumerate(self.pipes):
            if all(lo <= c <= hi for c, lo, hi in zip(core, p.lo, p.hi)):
                return i
        raise UnsupportedError(f"core {core} waits for a multicast of CB '{self.cb}' that no sender's "
                               f"rectangle covers")

    @property
    def senders(self) -> frozenset:
        return frozenset(p.src for p in self.pipes)

    @property
    def receivers(self) -> frozenset:
        out = set()
        for p in self.pipes:
            out.update((x, y) for x in range(p.lo[0], p.hi[0] + 1) for y in range(p.lo[1], p.hi[1] + 1))
        return frozenset(out)


@dataclass
class Names:
    """Python identifiers for the Loom names used in the emitted file (unique, never a keyword)."""

    used: set[str] = field(default_factory=set)
    table: dict[tuple[str, str], str] = field(default_factory=dict)

    def get(self, kind: str, name: str, suffix: str = "") -> str:
        key = (kind, name)
        if key not in self.table:
            base = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "v"
            if base[0].isdigit():
                base = "v_" + base
            base += suffix
            candidate, n = base, 1
            while candidate in self.used:
                n += 1
                candidate = f"{base}_{n}"
            self.used.add(candidate)
            self.table[key] = candidate
        return self.table[key]


RESERVED = {
    "ttl", "ttnn", "torch", "math", "F", "cx", "cy", "range", "len", "print", "float", "int", "run",
    "reference", "device", "main", "sys", "np", "tolerance", "to_device", "GRID", "TILE", "result",
    "expected", "got", "ok", "False", "True", "None", "and", "as", "assert", "async", "await", "break",
    "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
    "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "slice", "dict",
    "list", "tuple", "abs", "max", "min", "sum", "all", "any", "pipe", "row", "col", "px", "py", "d",
    "like_bfloat16", "like_float32", "like_float16", "like_bfp8_b", "outputs", "error", "name", "value",
}


@dataclass
class Context:
    """What every core's lowering shares: declarations, pipes and identifiers."""

    program: P.Program
    tile: tuple[int, int]
    cbs: dict[str, P.CB]
    buffers: dict[str, P.Buffer]
    tensors: dict[str, P.Tensor]
    nets: dict[str, Net]
    names: Names
    in_place: set[str] = field(default_factory=set)  # locals that need two slots

    def tensor_rows(self, tensor: str, index: tuple[P.Affine, ...]) -> P.Affine:
        """Tile row of `index` in the 2-D view (leading dims folded into rows) of `tensor`."""
        t = self.tensors[tensor]
        rows = t.shape[-2] // self.tile[0]
        row = index[-2]
        stride = rows
        for dim in range(len(t.shape) - 3, -1, -1):
            row = row + index[dim] * stride
            stride *= t.shape[dim]
        return row

    def dfb(self, name: str) -> str:
        return self.names.get("dfb", name, "_dfb")

    def handle(self, name: str) -> str:
        return self.names.get("blk", name)

    def next_handle(self, name: str) -> str:
        return self.names.get("next", name, "_next")

    def var(self, name: str) -> str:
        return self.names.get("var", name)

    def block_shape(self, name: str) -> tuple[int, int]:
        if name in self.cbs:
            return self.cbs[name].rows, self.cbs[name].cols
        b = self.buffers[name]
        return b.rows, b.cols


def subst(value: P.Affine, core: tuple[int, int]) -> P.Affine:
    """`value` with the core coordinates `cx`, `cy` replaced by `core`."""
    const = value.const
    terms = []
    for name, c in value.terms:
        if name == "cx":
            const += c * core[0]
        elif name == "cy":
            const += c * core[1]
        else:
            terms.append((name, c))
    return P.Affine(const, tuple(terms))


def coord2(value: Iterable[P.Idx], core: tuple[int, int], what: str) -> tuple[int, int]:
    out = []
    for v in value:
        a = subst(P.Affine.of(v), core)
        if a.terms:
            moving = ", ".join(n for n, _ in a.terms)
            raise UnsupportedError(f"{what} moves with loop variable(s) {moving}; a ttl.Pipe connects fixed "
                                   "nodes")
        out.append(a.const)
    return (out + [0])[:2] if len(out) < 2 else (out[0], out[1])


def core2(core: tuple[int, ...]) -> tuple[int, int]:
    return (core[0], core[1] if len(core) > 1 else 0)


# --- pipes --------------------------------------------------------------------------------------


def split_rect(src: tuple[int, int], lo: tuple[int, int], hi: tuple[int, int]) -> list[PipeSpec]:
    """The rectangle `lo..hi` without `src`, as at most four rectangles (TT-Lang pipe destinations)."""
    (x0, y0), (x1, y1) = lo, hi
    sx, sy = src
    if not (x0 <= sx <= x1 and y0 <= sy <= y1):
        return [PipeSpec(src, lo, hi)]
    parts = []
    if sx < x1:
        parts.append(PipeSpec(src, (sx + 1, sy), (x1, sy)))
    if sx > x0:
        parts.append(PipeSpec(src, (x0, sy), (sx - 1, sy)))
    if sy < y1:
        parts.append(PipeSpec(src, (x0, sy + 1), (x1, y1)))
    if sy > y0:
        parts.append(PipeSpec(src, (x0, y0), (x1, sy - 1)))
    return parts


def _executed(body: Iterable[P.Instr]) -> Iterable[P.Instr]:
    """The instructions of `body` that run at least once (loops of zero trips skipped)."""
    for ins in body:
        if isinstance(ins, P.Loop):
            if ins.count > 0:
                yield from _executed(ins.body)
        else:
            yield ins


def collect_nets(program: P.Program) -> dict[str, Net]:
    """One net per destination CB of a multicast, with every sender's pipes and the handshake's semaphores."""
    nets: dict[str, Net] = {}
    for group in program.groups:
        for core in group.cores:
            c2 = core2(core)
            for role in P.ROLES:
                last_cb, waited = None, []
                for ins in _executed(group.role(role)):
                    if isinstance(ins, P.Multicast):
                        if ins.loopback:
                            raise UnsupportedError(
                                f"core {core}: a loopback multicast of CB '{ins.cb}' also lands on its "
                                "sender; a ttl.Pipe never delivers to its own source")
                        cb = ins.dst_cb or ins.cb
                        net = nets.setdefault(cb, Net(cb))
                        lo = coord2(ins.lo, c2, f"core {core}: the multicast rectangle of CB '{ins.cb}'")
                        hi = coord2(ins.hi, c2, f"core {core}: the multicast rectangle of CB '{ins.cb}'")
                        for spec in split_rect(c2, lo, hi):
                            if spec not in net.pipes:
                                net.pipes.append(spec)
                        net.ready_sems.update(waited)  # the sender waited for its receivers' slots
                        last_cb, waited = cb, []
                    elif isinstance(ins, P.SemSet) and ins.lo is not None and last_cb is not None:
                        nets[last_cb].valid_sems.add(ins.sem)  # the sender flags its receivers
                    elif isinstance(ins, P.SemWait):
                        waited.append(ins.sem)
                    elif isinstance(ins, P.DramRead):
                        nets.setdefault(ins.cb, Net(ins.cb)).tensors.add(ins.tensor)
    out = {}
    for cb, net in nets.items():
        if net.pipes:
            net.pipes.sort(key=lambda p: (p.src[1], p.src[0], p.lo[1], p.lo[0]))
            out[cb] = net
    return out


# --- data movement ------------------------------------------------------------------------------


class MoveLowering:
    """One core's reader or writer role."""

    def __init__(self, ctx: Context, core: tuple[int, ...], role: str):
        self.ctx, self.core, self.role = ctx, core, role
        self.c2 = core2(core)
        self.open: dict[str, tuple[str, str]] = {}  # cb -> (kind, handle)
        self.valid = {s: n for n in ctx.nets.values() for s in n.valid_sems}
        self.ready = {s: n for n in ctx.nets.values() for s in n.ready_sems}

    def where(self) -> str:
        return f"core {self.core}, {self.role}"

    def lower(self, body: Iterable[P.Instr]) -> list:
        out: list = []
        for ins in body:
            if isinstance(ins, P.Loop):
                if ins.count <= 0:
                    continue
                out.append(For(self.ctx.var(ins.var), ins.count, tuple(self.lower(ins.body))))
            else:
                out += self.instr(ins)
        return out

    def _block(self, cb: str, tiles: int | None, what: str) -> None:
        decl = self.ctx.cbs.get(cb)
        if decl is None:
            raise UnsupportedError(f"{self.where()}: {what} names '{cb}', which is no CB of the program")
        if tiles is not None and tiles != decl.block_tiles:
            raise UnsupportedError(f"{self.where()}: {what} of {tiles} tiles on CB '{cb}' whose block is "
                                   f"{decl.rows}x{decl.cols} tiles; a TT-Lang dataflow buffer is reserved "
                                   "and waited one whole block at a time")

    def _handle(self, cb: str, kind: str, what: str) -> str:
        got = self.open.get(cb)
        if got is None or got[0] != kind:
            side = "reserved back (CbReserve)" if kind == "reserve" else "waited front (CbWait)"
            raise UnsupportedError(f"{self.where()}: {what} uses CB '{cb}' outside a {side}; TT-Lang copies "
                                   "only to and from an acquired block")
        return got[1]

    def _whole(self, ins: Any, cb: str, rows: int, cols: int, offset: P.Affine, what: str) -> None:
        decl = self.ctx.cbs[cb]
        off = subst(offset, self.c2)
        if (rows, cols) != (decl.rows, decl.cols) or off.terms or off.const:
            raise UnsupportedError(
                f"{self.where()}: {what} moves a {rows}x{cols} tile block at offset {off} of CB '{cb}' whose "
                f"block is {decl.rows}x{decl.cols}; ttl.copy moves a whole block")

    def _slice(self, tensor: str, index: tuple[P.Affine, ...]) -> tuple[P.Affine, P.Affine]:
        idx = tuple(subst(a, self.c2) for a in index)
        return (self.ctx.tensor_rows(tensor, idx), idx[-1])

    def instr(self, ins: P.Instr) -> list:
        ctx = self.ctx
        if isinstance(ins, (P.CbReserve, P.CbWait)):
            kind = "reserve" if isinstance(ins, P.CbReserve) else "wait"
            self._block(ins.cb, ins.tiles, type(ins).__name__)
            if ins.cb in self.open:
                raise UnsupportedError(f"{self.where()}: CB '{ins.cb}' is acquired twice without a push/pop")
            handle = ctx.handle(ins.cb)
            self.open[ins.cb] = (kind, handle)
            return [Acquire(ctx.dfb(ins.cb), kind, handle)]
        if isinstance(ins, (P.CbPush, P.CbPop)):
            kind = "reserve" if isinstance(ins, P.CbPush) else "wait"
            self._block(ins.cb, ins.tiles, type(ins).__name__)
            handle = self._handle(ins.cb, kind, type(ins).__name__)
            del self.open[ins.cb]
            return [Release(handle, "push" if kind == "reserve" else "pop")]
        if isinstance(ins, P.DramRead):
            if ins.clip:
                raise UnsupportedError(f"{self.where()}: DramRead of '{ins.tensor}' may reach outside the tensor (a "
                                       "load at shifted tile positions); ttl.copy moves a slice inside it")
            handle = self._handle(ins.cb, "reserve", f"DramRead of '{ins.tensor}'")
            self._whole(ins, ins.cb, ins.rows, ins.cols, ins.offset, f"DramRead of '{ins.tensor}'")
            return [CopyIn(ctx.names.get("tensor", ins.tensor), self._slice(ins.tensor, ins.index),
                           (ins.rows, ins.cols), handle)]
        if isinstance(ins, P.DramWrite):
            handle = self._handle(ins.cb, "wait", f"DramWrite of '{ins.tensor}'")
            self._whole(ins, ins.cb, ins.rows, ins.cols, ins.offset, f"DramWrite of '{ins.tensor}'")
            return [CopyOut(handle, ctx.names.get("tensor", ins.tensor), self._slice(ins.tensor, ins.index),
                            (ins.rows, ins.cols))]
        if isinstance(ins, P.Barrier):
            return []  # every copy is waited where it is issued
        if isinstance(ins, P.Multicast):
            kind = "reserve" if ins.src == "back" else "wait"
            handle = self._handle(ins.cb, kind, "Multicast")
            decl = ctx.cbs[ins.cb]
            dst = ins.dst_cb or ins.cb
            if (ins.tiles not in (None, decl.block_tiles) or subst(ins.offset, self.c2) != P.Affine(0)
                    or subst(ins.dst_offset, self.c2) != P.Affine(0)):
                raise UnsupportedError(f"{self.where()}: a multicast of part of a block of CB '{ins.cb}'; a "
                                       "pipe carries whole blocks")
            net = ctx.nets[dst]
            lo = coord2(ins.lo, self.c2, "multicast rectangle")
            hi = coord2(ins.hi, self.c2, "multicast rectangle")
            return [Send(handle, ctx.names.get("net", dst), net.index(spec))
                    for spec in split_rect(self.c2, lo, hi)]
        if isinstance(ins, P.SemWait):
            if ins.sem in self.valid:
                net = self.valid[ins.sem]
                handle = self._handle(net.cb, "reserve", f"the multicast receive of CB '{net.cb}'")
                return [Recv(ctx.names.get("net", net.cb), net.receiving(self.c2), handle)]
            if ins.sem in self.ready:
                return []  # the sender waits for its receivers: part of the pipe
            raise self._sem(ins.sem)
        if isinstance(ins, (P.SemSet, P.SemInc)):
            if ins.sem in self.valid or ins.sem in self.ready:
                return []
            raise self._sem(ins.sem)
        if isinstance(ins, (P.Write, P.RemoteRead)):
            raise UnsupportedError(
                f"{self.where()}: {type(ins).__name__} moves L1 data between cores outside a recognised "
                "multicast handshake; TT-Lang expresses core-to-core transfers only as ttl.Pipe copies whose "
                "receiver is known when the program is written")
        raise UnsupportedError(f"{self.where()}: {type(ins).__name__} has no TT-Lang data-movement form")

    def _sem(self, sem: str) -> UnsupportedError:
        return UnsupportedError(
            f"{self.where()}: semaphore '{sem}' is not part of a multicast sender/receiver handshake; "
            "TT-Lang has no user-visible semaphores (its compiler allocates those of ttl.Pipe transfers)")
