"""Stage 1, picks: a load of one row, one column or one value at a position inside a 32 x 32 tile.

Tensix moves whole tiles: `dA[b.begin, h.begin, c.begin, tile_k]` of a [batch, heads, chunks, chunk]
tensor reads row `c` of its tiles, and `dA[b.begin, h.begin, c.begin, chunk - 1]` one value at row `c`,
column 63; neither starts on a tile's edge. Such a load reads the tiles that can hold the position and
picks from them on the vector unit: the other positions masked to zero (a position mask whose offsets
are the picked position), then summed away, which is exact. Which tiles, from the values the position
takes when compiling (`ScalarLowering.scalar_span`): where it moves in whole tiles from a fixed place in
one (`min(t.begin + 64, n) - 1`: 31 past `t.begin + 32`), the one tile at that place; else every tile
its values reach (`c.begin` over 4 chunks: the first tile; a head `h.begin` over 80 heads: three).
A picked column (`x[tile_m, 5]`) is one row reduction, a column already; a picked row is a transpose and
a row reduction: a column of the row's values, the layout a rank-1 value takes (`x.sum(-1)`'s); one
value is both, left at the tile's first element, a tile of one. A pick moves whole tiles for one row,
column or value, as any read of them on Tensix does.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.fx
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType

from loom import ops
from loom.errors import UnsupportedError
from loom.frontend.access import TileAt
from loom.frontend.tiles import Tile

MOST_TILES_PICKED_FROM = 8
"""A position whose place in its tile moves (`h.begin` over 80 heads) is picked from every tile it reaches, read
as one block: at most this many along a dimension (a compiler limit, not the hardware's)."""


@dataclass(frozen=True)
class Pick:
    """A picked dimension of a load: the position (`at`, an integer or a scalar index node), and where it
    lies in the tiles read: `inside` positions past their start, or, where that is not known when compiling
    (None), `at - base`, `base` the first position read."""

    dim: int
    at: int | torch.fx.Node
    inside: int | None
    base: int = 0


class PickLowering:
    """Picks of `KernelLowering` (a mixin: it uses the lowering's builder state and `AccessLowering`)."""

    def picks(self, node: torch.fx.Node, index: list, shape: list[int]) -> tuple[list, list[Pick]]:
        """A load's index with each of its last two entries that is a position made the tiles that can hold it
        (a slice, or a `TileAt` where the tile moves), where one of them is off a tile's edge; and those picks."""
        index = list(index)
        spans = {}
        for dim in range(max(0, len(shape) - 2), len(shape)):
            at = self.picked_position(index[dim])
            at = at % shape[dim] if isinstance(at, int) and -shape[dim] <= at < shape[dim] else at  # `x[:, -1]`
            span = None if at is None else (at, at, 0) if isinstance(at, int) else self.scalar_span(at)
            if span is not None:  # (`access` refuses what is not affine)
                spans[dim] = at, span
        tile = self.alignment
        if all(low % tile == 0 and step % tile == 0 for _, (low, _, step) in spans.values()):
            return index, []  # on tiles' edges: an ordinary read
        picks = []
        for dim, (at, (low, high, step)) in spans.items():
            if step % tile == 0 and not isinstance(at, int):  # whole tiles from a fixed place in one
                index[dim] = TileAt(at, -(low % tile), tile)
                picks.append(Pick(dim, at, low % tile))
                continue
            base, end = low - low % tile, min(shape[dim], high - high % tile + tile)
            if end - base > MOST_TILES_PICKED_FROM * tile:
                raise UnsupportedError(
                    f"a load of one row, column or value at a position off a tile's edge that takes values {low} to "
                    f"{high}, over {-(-(end - base) // tile)} tiles, is not supported; expected a position that moves "
                    f"in whole tiles (`t.begin + 5`) or reaches at most {MOST_TILES_PICKED_FROM}",
                    self.k.location(node))
            index[dim] = slice(base, end)  # every tile the position reaches
            picks.append(Pick(dim, at, at - base if isinstance(at, int) else None, base))
        return index, picks

    def picked(self, tile: Tile, picks: list[Pick], rank: int, node: torch.fx.Node) -> Tile:
        """The row, column or value `picks` name, from the tile read for them (see the module)."""
        if len(tile.dims) != 2 or tile.expanded:
            raise UnsupportedError("a pick of one row, column or value inside a tile from a load that is not one "
                                   "2-D block is not supported yet", self.k.location(node))
        if isinstance(tile.value.type.element_type, IntegerType):
            raise UnsupportedError("a pick of one row, column or value off a tile's edge from an integer tensor is "
                                   "not supported yet (the vector unit sums floats); expected positions on tiles' "
                                   "edges", self.k.location(node))
        offsets, keep = [self.const(0), self.const(0)], []
        for pick in picks:
            axis = pick.dim - (rank - 2)
            if pick.inside is not None:
                offsets[axis] = self.const(-pick.inside)  # the position of the picked one: 0
            else:
                at = self.affine_index(pick.at, node)
                offsets[axis] = self.b.insert(arith.SubiOp(self.const(pick.base), at)).result
            keep += [[int(a == axis) for a in range(2)] + [0], [-int(a == axis) for a in range(2)] + [0]]
        masked = self.position_mask(tile, offsets, keep, 0.0, node)
        total = ops.lookup("reduce", "sum")
        if [p.dim - (rank - 2) for p in picks] == [1]:  # one column: a row reduction
            return self.reduce_tile(masked, [1], total, node)
        rows = self.permuted(masked, [1, 0], node)  # the picked row as a column
        column = self.reduce_tile(rows, [1], total, node)
        if len(picks) == 1:
            return column
        return self.reduce_tile(self.column_as_row(column, node), [1], total, node)  # one value, at (0, 0)

    def picked_position(self, entry: object) -> int | torch.fx.Node | None:
        """The position an index entry picks on its dimension, where it is one (an integer, a slice of one,
        a scalar index node but a tile's own symbol), else None."""
        if isinstance(entry, bool):
            return None
        if isinstance(entry, int):
            return entry
        if isinstance(entry, slice) and isinstance(entry.start, int) and entry.stop == entry.start + 1:
            return entry.start
        value = entry.meta.get("val") if isinstance(entry, torch.fx.Node) else None
        if isinstance(value, torch.SymInt) and value.node.expr not in self.sym_of:
            return entry
        return None
