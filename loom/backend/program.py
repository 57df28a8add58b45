"""Per-core programs: the form every backend consumes (the simulator, later TT-Lang and Metalium).

A `Program` is written the way TT-Metalium kernels are: every participating core runs three
roles concurrently,

- a **reader** (data-movement RISC, NoC 0 by default): DRAM / other cores -> L1 circular buffers,
- a **compute** role (matrix engine and vector unit): ops on tiles in circular buffers and in
  named local L1 buffers (accumulators that persist across loop iterations),
- a **writer** (data-movement RISC, NoC 1 by default): L1 -> DRAM, forwarding to other cores,

which synchronise through circular buffers (CBs: `CbReserve`/`CbPush` on the producer side,
`CbWait`/`CbPop` on the consumer side) and semaphores (the sender/receiver handshake of a
multicast). Everything is counted in 32x32 tiles; a block is `rows x cols` tiles.

Programs stay compact for regular kernels: bodies are structured loops (`Loop(var, count, body)`)
and every index is an `Affine` expression in the enclosing loop variables and the core's own
coordinates `cx` (and `cy` on a 2-D grid). Cores that run the same code form one `CoreGroup`.

Conventions:
- A CB's *back* is the region `[write pointer, write pointer + n)` a producer reserved; its
  *front* is the oldest `n` pushed tiles. Transfers into a CB (DRAM reads, remote writes,
  multicasts) land in the destination's back; `DramWrite` and compute inputs read the front;
  compute outputs go to the back. A CB front/back is seen as a block of the CB's declared
  `rows x cols` shape (tile `(r, c)` is tile `r * cols + c` from the pointer).
- Data-movement instructions are asynchronous: they cost the issuing RISC
  `noc.transfer_issue_cycles` per NoC command and complete later; `Barrier()` waits until every
  transfer the role issued has completed. Semaphore updates sent to other cores are delivered
  after every transfer the role issued before them (NoC ordering on one path).
- Global tensors are DRAM-interleaved tile by tile: tile `i` (row-major over all tiles) lives in
  bank `i mod dram.banks`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Literal

from loom.backend.compute_ops import (  # noqa: F401 (re-exported)
    Bcast,
    Binary,
    BinaryOp,
    Copy,
    Fidelity,
    Fill,
    Live,
    Mask,
    Matmul,
    Reduce,
    Scalar,
    Transpose,
    Unary,
    UnaryOp,
    operands,
)
from loom.backend.index import CORE_VARS, Affine, Coord, Idx, Ref, _aff, _affs, _set, cx, cy  # noqa: F401 (re-exported)
from loom.errors import L1OverflowError, ProgramError  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    from loom.arch import Arch



# --- declarations ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tensor:
    """A global tensor in DRAM. `shape` is in elements; its last two dims must be whole tiles.

    `valid`, when set, is the extent (in elements) of the data the tensor really holds, for a
    program compiled at a shape padded past it: blocks are computed whole, but only their tiles
    inside `valid` are moved to or from DRAM, laid out (and interleaved over the banks) as a
    tensor of that extent would be. This is how vendor kernels treat a padded last block."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    kind: Literal["input", "output", "scratch"] = "input"
    valid: tuple[int, ...] | None = None
    vector: Literal["row", "col", "scalar"] | None = None  # the kernel's rank-1 tensor, held as a 1 x n row or n x 1
    # column, or as one 1 x 1 matrix per value (a value per batch slice, `advantages[tile_b]`)
    order: tuple[int, ...] | None = None  # held permuted: the kernel's tensor is `x.permute(order)` here
    # (`loom.frontend.layouts`); the host lays it out so and reads it back


@dataclass(frozen=True)
class CB:
    """A circular buffer: `slots` blocks of `rows x cols` tiles of `dtype` (capacity in tiles)."""

    name: str
    dtype: str
    rows: int = 1
    cols: int = 1
    slots: int = 2

    @property
    def block_tiles(self) -> int:
        """Tiles in one block; the default count of `CbReserve`/`CbPush`/`CbWait`/`CbPop`."""
        return self.rows * self.cols

    @property
    def capacity(self) -> int:  # in tiles
        return self.slots * self.rows * self.cols


@dataclass(frozen=True)
class Buffer:
    """A named local L1 buffer of `rows x cols` tiles (e.g. an accumulator) that persists."""

    name: str
    dtype: str
    rows: int
    cols: int


@dataclass(frozen=True)
class Semaphore:
    """A per-core semaphore (same name on every core of a group), with its initial value."""

    name: str
    initial: int = 0


# --- instructions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Trips:
    """A trip count that grows with enclosing loops: min(ceil(`end` / `block`), `most`), at least 0 (a loop
    to an enclosing tile's end, `hl.tile(0, tile_m.end)`: `end` = (m + 1) × that tile's block)."""

    end: Idx
    block: int
    most: int

    def __post_init__(self) -> None:
        _set(self, "end", _aff(self.end))

    def eval(self, env: dict[str, int]) -> int:
        return max(0, min(-(-self.end.eval(env) // self.block), self.most))

    def __str__(self) -> str:
        return f"min(ceil(({self.end}) / {self.block}), {self.most})"


@dataclass(frozen=True)
class Loop:
    """`for var in range(count): body`; `count` a number or `Trips` (per the enclosing loops' variables)."""

    var: str
    count: int | Trips
    body: tuple[Instr, ...]

    def __post_init__(self) -> None:
        _set(self, "body", tuple(self.body))


@dataclass(frozen=True)
class CbReserve:
    """Producer: wait until `tiles` (default one block) are free at the CB's back."""

    cb: str
    tiles: int | None = None


@dataclass(frozen=True)
class CbPush:
    """Producer: make `tiles` (default one block) at the back visible to the consumer."""

    cb: str
    tiles: int | None = None


@dataclass(frozen=True)
class CbWait:
    """Consumer: wait until `tiles` (default one block) are visible at the CB's front. An `Affine` count
    in the enclosing loop variables waits for a growing prefix without popping (TT-Metal's cumulative
    `cb_wait_front`): a pass that reads block i of a kept row in iteration i waits for i + 1 blocks."""

    cb: str
    tiles: int | Affine | None = None


@dataclass(frozen=True)
class CbPop:
    """Consumer: free `tiles` (default one block) at the CB's front."""

    cb: str
    tiles: int | None = None


@dataclass(frozen=True)
class DramRead:
    """Read a `rows x cols` tile block of `tensor` starting at tile coordinate `index` (leading
    dims, then tile row and tile column) into `cb`'s back at tile `offset`; one NoC read per tile.
    `clip`: the block may reach outside the tensor's tile rows and columns (a load at shifted tile
    positions, `y[tile_m, tile_n.index - n1]`); its tiles outside read as zeros and move nothing."""

    tensor: str
    index: tuple[Idx, ...]
    cb: str
    rows: int = 1
    cols: int = 1
    offset: Idx = 0
    noc: int | None = None
    clip: bool = False

    def __post_init__(self) -> None:
        _set(self, "index", _affs(self.index))
        _set(self, "offset", _aff(self.offset))


@dataclass(frozen=True)
class DramWrite:
    """Write a `rows x cols` tile block from `cb`'s front (tile `offset`) to `tensor` at `index`."""

    tensor: str
    index: tuple[Idx, ...]
    cb: str
    rows: int = 1
    cols: int = 1
    offset: Idx = 0
    noc: int | None = None

    def __post_init__(self) -> None:
        _set(self, "index", _affs(self.index))
        _set(self, "offset", _aff(self.offset))


@dataclass(frozen=True)
class Write:
    """Unicast L1 -> L1: `tiles` from this core's `cb` (its back or front, tile `offset`) into the
    back of `dst_cb` (default: same name) on core `dst`, at tile `dst_offset`."""

    dst: tuple[Idx, ...]
    cb: str
    tiles: int | None = None
    dst_cb: str | None = None
    src: Literal["back", "front"] = "back"
    offset: Idx = 0
    dst_offset: Idx = 0
    noc: int | None = None

    def __post_init__(self) -> None:
        _set(self, "dst", _affs(self.dst))
        _set(self, "offset", _aff(self.offset))
        _set(self, "dst_offset", _aff(self.dst_offset))


@dataclass(frozen=True)
class Multicast:
    """One injection of `tiles` from this core's `cb` into `dst_cb` of every core in the inclusive
    rectangle `lo..hi` (a row or column when one extent is 1). The sender is skipped unless
    `loopback`; `linked` holds the path for the whole transfer (TT's linked multicast)."""

    lo: tuple[Idx, ...]
    hi: tuple[Idx, ...]
    cb: str
    tiles: int | None = None
    dst_cb: str | None = None
    src: Literal["back", "front"] = "back"
    offset: Idx = 0
    dst_offset: Idx = 0
    loopback: bool = False
    linked: bool = True
    noc: int | None = None

    def __post_init__(self) -> None:
        _set(self, "lo", _affs(self.lo))
        _set(self, "hi", _affs(self.hi))
        _set(self, "offset", _aff(self.offset))
        _set(self, "dst_offset", _aff(self.dst_offset))


@dataclass(frozen=True)
class RemoteRead:
    """L1 <- L1: read `tiles` from the front of `src_cb` on core `src` into this core's `cb` back."""

    src: tuple[Idx, ...]
    src_cb: str
    cb: str
    tiles: int | None = None
    offset: Idx = 0
    dst_offset: Idx = 0
    noc: int | None = None

    def __post_init__(self) -> None:
        _set(self, "src", _affs(self.src))
        _set(self, "offset", _aff(self.offset))
        _set(self, "dst_offset", _aff(self.dst_offset))


@dataclass(frozen=True)
class Barrier:
    """Wait until the transfers this role issued have completed: every one (`kind="all"`), its
    reads (`"reads"`: TT-Metalium's noc_async_read_barrier) or its writes, to DRAM or to other
    cores (`"writes"`: noc_async_write_barrier)."""

    kind: Literal["all", "reads", "writes"] = "all"


@dataclass(frozen=True)
class SemWait:
    """Wait until the local semaphore equals (`cmp="eq"`) or reaches (`"ge"`) `value`."""

    sem: str
    value: int
    cmp: Literal["eq", "ge"] = "eq"


@dataclass(frozen=True)
class SemSet:
    """Set semaphore `sem` to `value`: locally, on core `core`, or multicast to `lo..hi`."""

    sem: str
    value: int
    core: tuple[Idx, ...] | None = None
    lo: tuple[Idx, ...] | None = None
    hi: tuple[Idx, ...] | None = None
    noc: int | None = None

    def __post_init__(self) -> None:
        for name in ("core", "lo", "hi"):
            if getattr(self, name) is not None:
                _set(self, name, _affs(getattr(self, name)))


@dataclass(frozen=True)
class SemInc:
    """Atomically add `amount` to semaphore `sem`, locally or on core `core`."""

    sem: str
    amount: int = 1
    core: tuple[Idx, ...] | None = None
    noc: int | None = None

    def __post_init__(self) -> None:
        if self.core is not None:
            _set(self, "core", _affs(self.core))


Instr = (Loop | CbReserve | CbPush | CbWait | CbPop | DramRead
         | DramWrite | Write | Multicast | RemoteRead | Barrier | SemWait
         | SemSet | SemInc | Fill | Matmul | Transpose | Binary | Scalar | Unary | Reduce | Mask | Copy)
COMPUTE_OPS = (Fill, Matmul, Transpose, Binary, Scalar, Unary, Reduce, Mask, Copy)
MOVE_OPS = (DramRead, DramWrite, Write, Multicast, RemoteRead, Barrier, SemWait, SemSet, SemInc)
CB_OPS = (CbReserve, CbPush, CbWait, CbPop)
ROLES = ("reader", "compute", "writer")


@dataclass(frozen=True)
class CoreGroup:
    """Cores that run the same three role programs, parameterised by their coordinates."""

    cores: tuple[Coord, ...]
    cbs: tuple[CB, ...] = ()
    buffers: tuple[Buffer, ...] = ()
    semaphores: tuple[Semaphore, ...] = ()
    reader: tuple[Instr, ...] = ()
    compute: tuple[Instr, ...] = ()
    writer: tuple[Instr, ...] = ()
    name: str = ""

    def __post_init__(self) -> None:
        for attr in ("cores", "cbs", "buffers", "semaphores", "reader", "compute", "writer"):
            _set(self, attr, tuple(getattr(self, attr)))
        _set(self, "cores", tuple(tuple(c) for c in self.cores))

    def role(self, kind: str) -> tuple[Instr, ...]:
        """The instructions of role `kind` ("reader", "compute" or "writer")."""
        return getattr(self, kind)

    @property
    def label(self) -> str:
        """How errors name this group."""
        return self.name or f"group of {len(self.cores)} core(s) starting at {self.cores[0]}"


@dataclass(frozen=True)
class Program:
    """Per-core programs for one kernel launch on architecture `arch` (a name in `loom/archs`)."""

    arch: str
    tensors: tuple[Tensor, ...]
    groups: tuple[CoreGroup, ...]
    name: str = "program"
    meta: Mapping[str, object] = field(default_factory=dict, compare=False)
    engine_nocs: Mapping[str, int] | None = None  # each role's NoC where chosen (TTNN's matmul); else the defaults

    def __post_init__(self) -> None:
        _set(self, "tensors", tuple(self.tensors))
        _set(self, "groups", tuple(self.groups))

    @property
    def cores(self) -> tuple[Coord, ...]:
        """Every participating core, in group order."""
        return tuple(c for g in self.groups for c in g.cores)

    def tensor(self, name: str) -> Tensor:
        """The global tensor called `name`."""
        for t in self.tensors:
            if t.name == name:
                return t
        raise ProgramError(f"expected a declared tensor named '{name}', found only "
                           f"{', '.join(t.name for t in self.tensors) or 'none'}")

    def l1_bytes(self, arch: Arch) -> dict[Coord, int]:
        """L1 bytes each core allocates: CB capacity x tile bytes plus local buffers."""
        out = {}
        for g in self.groups:
            size = sum(cb.capacity * _tile_bytes(arch, cb.dtype, f"CB '{cb.name}'") for cb in g.cbs)
            size += sum(b.rows * b.cols * _tile_bytes(arch, b.dtype, f"buffer '{b.name}'") for b in g.buffers)
            out.update({c: size for c in g.cores})
        return out

    def text(self) -> str:
        """A compact human-readable listing (one line per instruction, loops indented)."""
        lines = [f"program {self.name} on {self.arch}"]
        lines += [f"  tensor {t.name} {list(t.shape)} {t.dtype} {t.kind}"
                  + (f" valid {list(t.valid)}" if t.valid else "")
                  for t in self.tensors]
        for g in self.groups:
            lines.append(f"  group '{g.label}': cores {', '.join(map(str, g.cores))}")
            lines += [f"    cb {c.name} {c.dtype} {c.rows}x{c.cols} x {c.slots} slots" for c in g.cbs]
            lines += [f"    buffer {b.name} {b.dtype} {b.rows}x{b.cols}" for b in g.buffers]
            lines += [f"    semaphore {m.name} = {m.initial}" for m in g.semaphores]
            for role in ROLES:
                if g.role(role):
                    lines.append(f"    {role}:")
                    lines += _listing(g.role(role), "      ")
        return "\n".join(lines)



def _tile_bytes(arch: Arch, dtype: str, what: str) -> int:
    try:
        return arch.dtypes.tile_bytes[dtype]
    except KeyError:
        raise ProgramError(f"{what}: expected a dtype of {arch.name} ({', '.join(arch.dtypes.tile_bytes)}), "
                           f"found '{dtype}'") from None


def _listing(body: Iterable[Instr], indent: str) -> list[str]:
    out = []
    for ins in body:
        if isinstance(ins, Loop):
            out.append(f"{indent}for {ins.var} in 0..{ins.count}:")
            out += _listing(ins.body, indent + "  ")
            continue
        args = []
        for f in fields(ins):
            value = getattr(ins, f.name)
            constant = isinstance(value, Affine) and not value.terms
            if value == f.default or (constant and value.const == f.default):
                continue
            if isinstance(value, tuple) and value and isinstance(value[0], Affine):
                value = "(" + ", ".join(map(str, value)) + ")"
            elif isinstance(value, Ref):
                value = value.name + _extent(value)
            args.append(f"{f.name}={value}")
        out.append(f"{indent}{type(ins).__name__}({', '.join(args)})")
    return out


def _extent(ref: Ref) -> str:
    def axis(start: Affine, size: int | None) -> str:
        lo = "" if not start.terms and start.const == 0 else str(start)
        return f"{lo}:" + (f"+{size}" if size is not None else "")
    text = f"[{axis(ref.row, ref.rows)}, {axis(ref.col, ref.cols)}]"
    return "" if text == "[:, :]" else text


def walk(body: Iterable[Instr]) -> Iterator[Instr]:
    """Every instruction of `body`, loops included, in program order."""
    for ins in body:
        yield ins
        if isinstance(ins, Loop):
            yield from walk(ins.body)


def core_range(lo: Coord, hi: Coord) -> tuple[Coord, ...]:
    """Cores of the inclusive rectangle `lo..hi`, x fastest (`((0, 0), (1, 0), …)`)."""
    if len(lo) == 1:
        return tuple((x,) for x in range(lo[0], hi[0] + 1))
    return tuple((x, y) for y in range(lo[1], hi[1] + 1) for x in range(lo[0], hi[0] + 1))
