"""One home for compute cost: what each compute instruction asks of the Tensix's three threads.

A Tensix core computes with three threads that run concurrently and hand data on: the unpacker
(L1 circular buffers -> the matrix unit's source registers; two unpackers, one per source
operand, working side by side), math (the matrix unit's FPU or the vector unit's SFPU on the
destination register) and the packer (destination register -> L1). Every compute instruction is
a run of `items` items through these three threads; this module gives, per op and block shape,
each thread's cycles per item, all read from the architecture description:

- `unpack.cycles_per_tile[dtype]` per input tile unpacked, `pack.cycles_per_tile[dtype]` per
  output tile packed;
- elementwise and reduction ops: one item per tile; math `vector_unit.cycles_per_tile` of the
  op's cost keys (`loom.ops`); a row reduction packs only its one-tile-wide result, after the
  last item;
- matmul: one item per step along K (m x n output tiles, k steps); each step streams one operand
  through its unpacker once per tile product (m x n tiles) and unpacks the other, kept in its
  source register, once per subblock row or column (TT-Metal's matmul unpack, see `matmul`), and
  runs m x n tile products at the fidelity's `matrix_engine.cycles_per_tile`, slowed for thin
  tiles below `min_rows_full_rate` rows; the m x n result is packed after the last step;
  `fixed_latency_cycles` of set-up per output subblock (one when none is given).

Who combines the numbers is not decided here: the simulator runs the three threads as the
hardware does (`loom.sim.tensix`), the model prices an instruction with its own equation
(`loom.model.latency`). Counts may be ints (the simulator) or symbolic expressions (the model).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

from loom import ops
from loom.errors import LoomError

if TYPE_CHECKING:
    from loom.arch import Arch
    from loom.model.expr import Expr

Num = Union[int, "Expr"]
"""A count: an int in the simulator, a symbolic expression of block sizes in the model."""


class CostError(LoomError):
    """The architecture description lacks a number an instruction needs."""

    kind = "cost error"


@dataclass(frozen=True)
class Stages:
    """A compute instruction on the three threads: `items` items, each taking `unpack[i]` cycles on
    unpacker i (the unpackers work side by side), `math` on the math thread and `pack` on the
    packer; `setup` math cycles before the first item and `drain` pack cycles after the last."""

    items: Num
    unpack: tuple[Num, ...]
    math: Num
    pack: Num
    setup: Num = 0
    drain: Num = 0


def _table(arch: Arch, section: str, table: dict, key: str) -> int:
    if key not in table:
        raise CostError(f"expected {section}.{key} in {arch.name}, found only {', '.join(table) or 'none'}")
    return table[key]


def unpack_cycles(arch: Arch, dtype: str) -> int:
    """Unpacker cycles per tile of `dtype`."""
    return _table(arch, "unpack.cycles_per_tile", arch.unpack.cycles_per_tile, dtype)


def pack_cycles(arch: Arch, dtype: str) -> int:
    """Packer cycles per tile of `dtype`."""
    return _table(arch, "pack.cycles_per_tile", arch.pack.cycles_per_tile, dtype)


def vector_cycles(arch: Arch, key: str) -> int:
    """Math cycles per tile of the vector-unit cost key `key`."""
    return _table(arch, "vector_unit.cycles_per_tile", arch.vector_unit.cycles_per_tile, key)


def op_math_cycles(arch: Arch, op: ops.Op) -> int:
    """Math cycles per tile of a table op: the sum of its cost keys."""
    return sum(vector_cycles(arch, key) for key in op.cost)


def eltwise(arch: Arch, op: ops.Op, tiles: Num, inputs: tuple[str, ...], out: str) -> Stages:
    """A unary or binary op over `tiles` output tiles; `inputs` the dtypes its unpackers read."""
    unpack = tuple(unpack_cycles(arch, d) for d in inputs)  # one unpacker per operand
    return Stages(tiles, unpack, op_math_cycles(arch, op), pack_cycles(arch, out))


def reduce(arch: Arch, op: ops.Op, rows: Num, cols: Num, src: str, out: str, tiles: Num | None = None) -> Stages:
    """A row reduction of `rows x cols` tiles into `rows x 1` (`tiles` of them read, all by default)."""
    return Stages(rows * cols if tiles is None else tiles, (unpack_cycles(arch, src),), op_math_cycles(arch, op), 0,
                  drain=rows * pack_cycles(arch, out))


def datacopy(arch: Arch, key: str, tiles: Num, src: str | None, out: str) -> Stages:
    """A copy (format conversion), transpose (`key`="transpose") or fill (`src` None: nothing to
    unpack) of `tiles` tiles."""
    unpack = (unpack_cycles(arch, src),) if src is not None else ()
    return Stages(tiles, unpack, vector_cycles(arch, key), pack_cycles(arch, out))


def tile_product_cycles(arch: Arch, fidelity: str, rows_valid: int | None = None) -> int:
    """Matrix-unit cycles of one 32x32x32 tile product at `fidelity`; a tile with `rows_valid` rows
    below `min_rows_full_rate` costs as many rows as that minimum."""
    me = arch.matrix_engine
    cycles = _table(arch, "matrix_engine.cycles_per_tile", me.cycles_per_tile, fidelity)
    rows = arch.tiling.tile_rows
    if rows_valid is not None and rows_valid < rows:
        return math.ceil(cycles * max(rows_valid, me.min_rows_full_rate) / rows)
    return cycles


def default_fidelity(arch: Arch, *dtypes: str) -> str:
    """The architecture's default fidelity for inputs of `dtypes` (the slower one if they differ)."""
    me = arch.matrix_engine
    found = [me.default_fidelity[d] for d in dtypes if d in me.default_fidelity]
    if not found:
        raise CostError(f"expected matrix_engine.default_fidelity for dtype '{dtypes[0]}' in {arch.name}, "
                        f"found entries only for {', '.join(me.default_fidelity)}")
    return max(found, key=lambda f: me.cycles_per_tile[f])


def matmul(arch: Arch, m: Num, n: Num, k: Num, dtypes: tuple[str, str, str], fidelity: str | None = None,
           rows_valid: int | None = None, subblock: tuple[int, int] | None = None,
           products: Num | None = None, out_tiles: Num | None = None) -> Stages:
    """`acc (+)= a @ b` over m x k and k x n tiles in `subblock` (h, w) pieces (None: one piece);
    `dtypes` = (a, b, acc). `products` of the m n k tile products computed and `out_tiles` of the m n
    output tiles packed, all by default (an op on live tiles, `loom.backend.program.Live`): the
    streamed unpacks and the math shrink with the products.

    Per K step and subblock, the matmul unpacker (TT-Metal's `_llk_unpack_AB_matmul_`, Wormhole
    and Blackhole alike) keeps one operand's tiles in their source register and streams the other:
    it reuses `a` when w >= h (each of the h tiles of `a` unpacked once, the w tiles of `b` once
    per `a` tile), else `b`. The streamed operand is unpacked once per tile product, h x w times;
    the reused one min(h, w) times. A subblock shape does not lower the streamed count."""
    a, b, acc = dtypes
    fidelity = fidelity or default_fidelity(arch, a, b)
    h, w = subblock if subblock is not None else (m, n)
    subblocks = (m // h) * (n // w) if subblock is not None else 1
    u_a, u_b = unpack_cycles(arch, a), unpack_cycles(arch, b)
    if isinstance(h, int) and isinstance(w, int):
        reuse_a = w >= h
    else:  # a symbolic block (the model): stream the operand that is dearer to unpack, a bound
        reuse_a = u_b >= u_a
    streamed = m * n if products is None else products / k  # per K step
    unpack = (subblocks * h * u_a, streamed * u_b) if reuse_a else (streamed * u_a, subblocks * w * u_b)
    product = tile_product_cycles(arch, fidelity, rows_valid)
    return Stages(k, unpack, streamed * product, 0, setup=subblocks * arch.matrix_engine.fixed_latency_cycles,
                  drain=(m * n if out_tiles is None else out_tiles) * pack_cycles(arch, acc))


__all__ = ["CostError", "Stages", "datacopy", "default_fidelity", "eltwise", "matmul", "op_math_cycles", "pack_cycles",
           "reduce", "tile_product_cycles", "unpack_cycles", "vector_cycles"]
