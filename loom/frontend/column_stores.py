"""Stage 1, column stores: `stats[tile_m, 0] = mean` and `stats[tile_m, 1] = var` write two columns of
the same 32 x 32 tiles. The per-core programs write whole tiles, so two stores would each overwrite
the other's column; instead the columns a block of the kernel stores into one tile of a tensor are
gathered into one block, each value broadcast along the block's columns and kept by a position mask
on its own column (zeros elsewhere), and written once, when the block's lowering ends. A tensor of
one column keeps its plain column store. Columns stored from different blocks (a loop's body and the
block around it) are written separately, each block writing the columns it does not store as zeros.

    stats[tile_m, 0] = mean             # deferred
    stats[tile_m, 1] = m2 / count       # deferred
    # end of the block: stats[tile_m, 0:2] = where(col == 0, mean) + where(col == 1, m2 / count)
"""

from __future__ import annotations

from dataclasses import dataclass

import torch.fx
from xdsl.dialects import arith
from xdsl.ir import SSAValue

from loom.frontend.tiles import Tile


@dataclass
class _ColumnStore:
    node: torch.fx.Node
    dest: SSAValue
    index: list  # its last entry: the column
    value: Tile  # one value per row (a column)


class ColumnStoreLowering:
    """Mixed into `KernelLowering`: `pending_columns` holds the column stores of the graph being lowered."""

    pending_columns: list[_ColumnStore] | None = None

    def defers_column_store(self, node: torch.fx.Node, dest: SSAValue, index: list, value: object) -> bool:
        """Keep a column store for the end of the block (`store_columns`) where the tensor has more columns
        than one and the value is a column of the store's element type."""
        width = dest.type.get_shape()[-1]
        if self.pending_columns is None or width <= 1 or not isinstance(index[-1], int):
            return False
        if not isinstance(value, Tile) or value.row or len(value.dims) != 1 \
                or value.value.type.element_type != dest.type.element_type:
            return False  # the plain store refuses it with its reason
        self.pending_columns.append(_ColumnStore(node, dest, index, value))
        return True

    def flush_columns(self, dest: SSAValue | None = None) -> None:
        """Write the pending column stores (of `dest` only, when given: it is about to be read)."""
        if not self.pending_columns:
            return
        now = [s for s in self.pending_columns if dest is None or s.dest is dest]
        self.pending_columns[:] = [s for s in self.pending_columns if s not in now]
        groups: dict[tuple, list[_ColumnStore]] = {}
        for store in now:
            column = store.index[-1] % store.dest.type.get_shape()[-1]
            base = column - column % self.alignment
            groups.setdefault((id(store.dest), repr(store.index[:-1]), base), []).append(store)
        for (_, _, base), stores in groups.items():
            self.store_column_block(stores, base)

    def store_column_block(self, stores: list[_ColumnStore], base: int) -> None:
        """One block store of the columns `stores` write into the tile at column `base`."""
        first, last = stores[0], stores[-1]
        width = min(self.alignment, first.dest.type.get_shape()[-1] - base)
        dtype = first.dest.type.element_type
        dims = [*first.value.dims, width]
        zeros = Tile(self.filled(dims, dtype, 0.0, first.node), dims)
        parts = []
        for store in stores:
            column = store.index[-1] % store.dest.type.get_shape()[-1]
            spread = Tile(store.value.value, [*store.value.dims, 1], expanded=(1,))  # value[:, None]
            wide = self.elementwise_tiles(store.node, [zeros, spread], dims, dtype, arith.AddfOp)
            keep = [[0, 1, -column], [0, -1, column]]  # its own column: x - c >= 0 and c - x >= 0
            parts.append(self.position_mask(wide, [self.const(0), self.const(base)], keep, 0.0, store.node))
        block = parts[0]
        for part in parts[1:]:
            block = self.elementwise_tiles(last.node, [block, part], dims, dtype, arith.AddfOp)
        self.store_value(last.node, first.dest, [*first.index[:-1], slice(base, base + width)], block)


__all__ = ["ColumnStoreLowering"]
