"""The compute role's instructions of a per-core program (`loom.backend.program`): ops on tiles in circular
buffers and local L1 buffers, each naming its operands by `Ref`; `operands` lists them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from loom.backend.index import Idx, Ref, _aff, _set
from loom.errors import ProgramError

Fidelity = Literal["LoFi", "HiFi2", "HiFi3", "HiFi4"]
BinaryOp = str
"""A binary op of the op table (`loom.ops`, form "binary"): add, sub, mul, div, max, min, ..."""
UnaryOp = str
"""A unary op of the op table (form "unary"): exp, log, recip, neg, scale, copy, ..."""
Bcast = Literal["none", "row", "col", "scalar"]


@dataclass(frozen=True)
class Live:
    """The tiles of a block an op computes, the rest left undefined: a tile of `buffer`'s block is live
    when it holds an element a `Mask` keeps (`row_start`, `col_start`, `keep` as the Mask's). Set by
    `loom.backend.live_tiles` on the ops around a causal mask whose dead tiles (masked whole) only
    reach consumers that ignore them: a reduction whose identity they hold, a matmul's `a` of zeros.
    A backend that computes every tile computes the same values; the simulator prices the live tiles."""

    buffer: str
    row_start: Idx = 0
    col_start: Idx = 0
    keep: tuple[tuple[int, int, int], ...] = ()

    def __post_init__(self) -> None:
        _set(self, "row_start", _aff(self.row_start))
        _set(self, "col_start", _aff(self.col_start))
        _set(self, "keep", tuple(tuple(int(n) for n in half_plane) for half_plane in self.keep))

    def __str__(self) -> str:
        return f"{self.buffer} where {self.keep} at ({self.row_start}, {self.col_start})"

    def tiles(self, env: Mapping[str, int], rows: int, cols: int, tile: tuple[int, int]) -> list[list[bool]]:
        """Which of the block's `rows` x `cols` tiles are live at the loop variables `env`: a tile is kept
        unless one half-plane fails at every element of it (its best corner)."""
        y0, x0 = self.row_start.eval(env), self.col_start.eval(env)

        def best(start: int, coeff: int, size: int) -> int:  # the tile's first or last position
            return start + size - 1 if coeff >= 0 else start
        return [[all(a * best(y0 + r * tile[0], a, tile[0]) + b * best(x0 + c * tile[1], b, tile[1]) + k >= 0
                     for a, b, k in self.keep) for c in range(cols)] for r in range(rows)]


@dataclass(frozen=True)
class Fill:
    """`dst[...] = value`."""

    dst: Ref
    value: float = 0.0
    live: Live | None = None


@dataclass(frozen=True)
class Matmul:
    """`acc (+)= a @ b` (b transposed first if `transpose_b`); `rows_valid` < tile rows prices a
    thin-M matmul; `subblock` (h, w) splits the output into DST-sized pieces (one fixed latency each)."""

    a: Ref
    b: Ref
    acc: Ref
    accumulate: bool = True
    fidelity: Fidelity | None = None
    transpose_b: bool = False
    subblock: tuple[int, int] | None = None
    rows_valid: int | None = None
    live: Live | None = None


@dataclass(frozen=True)
class Transpose:
    """`dst = src.T` (the whole block as a matrix)."""

    src: Ref
    dst: Ref


@dataclass(frozen=True)
class Binary:
    """`dst = a op b`; `bcast` broadcasts b: "col" = b's first column across columns (per-row
    values, e.g. a row max), "row" = b's first row down the rows, "scalar" = b[0, 0]. `repeat`
    > 1: b's block (bcast "none" or "col") stands `repeat` times down a's rows, the leading
    dimensions of a tile that b lacks (`x * c[None, :, :]` on a heads x rows x columns tile)."""

    op: BinaryOp
    a: Ref
    b: Ref
    dst: Ref
    bcast: Bcast = "none"
    live: Live | None = None
    repeat: int = 1


@dataclass(frozen=True)
class Scalar:
    """`dst = op(a, value)` for a binary op of `loom.ops` with a constant operand (`reverse`: the
    constant comes first, `op(value, a)`)."""

    op: BinaryOp
    a: Ref
    dst: Ref
    value: float
    reverse: bool = False
    live: Live | None = None


@dataclass(frozen=True)
class Unary:
    """`dst = op(src) * scale` for an op of `loom.ops` (`scale` is the identity, so it only multiplies;
    "copy" converts to dst's dtype)."""

    op: UnaryOp
    src: Ref
    dst: Ref
    scale: float = 1.0
    live: Live | None = None


@dataclass(frozen=True)
class Reduce:
    """Row reduction: `dst[:, 0] = scale * reduce(src, axis=1)` (dst is one tile wide)."""

    op: str  # a reduction of `loom.ops`: "max" or "sum"
    src: Ref
    dst: Ref
    scale: float = 1.0
    live: Live | None = None


@dataclass(frozen=True)
class Mask:
    """`dst = src`, except `fill` at the elements whose position in the kernel's tensor fails `keep`:
    element (r, c) of the block is at (y, x) = (`row_start` + r, `col_start` + c), in elements, and is
    kept where every (a, b, k) of `keep` has a·y + b·x + k >= 0. A tail of L rows is (-1, 0, L - 1);
    a causal mask (query rows, key columns) is (1, -1, 0). A tail's padding takes the identity of the
    reduction that follows (`loom.frontend.tails`), a causal mask's -inf (`loom.frontend.positions`).
    With `data` (broadcast by `data_bcast`, as a Binary's b), half-plane i adds `data_coeffs[i]` times
    the element's value of it: x == label is (0, 1, 0) and (0, -1, 0) with coefficients -1 and 1."""

    src: Ref
    dst: Ref
    fill: float
    row_start: Idx = 0
    col_start: Idx = 0
    keep: tuple[tuple[int, int, int], ...] = ()
    data: Ref | None = None
    data_bcast: str = "col"
    data_coeffs: tuple[int, ...] = ()
    live: Live | None = None

    def __post_init__(self) -> None:
        _set(self, "row_start", _aff(self.row_start))
        _set(self, "col_start", _aff(self.col_start))
        _set(self, "keep", tuple(tuple(int(n) for n in half_plane) for half_plane in self.keep))


@dataclass(frozen=True)
class Copy:
    """`dst = src`, converting to dst's dtype (a pack)."""

    src: Ref
    dst: Ref
    live: Live | None = None


def operands(ins: object) -> tuple[tuple[Ref, ...], tuple[Ref, ...]]:
    """(inputs, outputs) of a compute op."""
    if isinstance(ins, Fill):
        return (), (ins.dst,)
    if isinstance(ins, Matmul):
        return (ins.a, ins.b), (ins.acc,)
    if isinstance(ins, Binary):
        return (ins.a, ins.b), (ins.dst,)
    if isinstance(ins, Scalar):
        return (ins.a,), (ins.dst,)
    if isinstance(ins, Mask):
        return (ins.src,) if ins.data is None else (ins.src, ins.data), (ins.dst,)
    if isinstance(ins, (Transpose, Unary, Reduce, Copy)):
        return (ins.src,), (ins.dst,)
    raise ProgramError(f"expected a compute op, found {type(ins).__name__}")
