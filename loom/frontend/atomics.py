"""Stage 1, atomic adds (`hl.atomic_add(out, [tile_m, tile_n], value)`) as reads, adds and writes (a mixin
of `KernelLowering`).

On a GPU many programs may add into the same place at once; on Tenstorrent nothing is atomic in DRAM.
An add is exact as a read, an add and a write where no two tiles of the grid add into the same block:
when every grid dimension is in its index. A grid dimension outside it, summed over by the adds (split-K),
was folded into the loop it walks before lowering (`loom.frontend.split_sums`); any other is refused.
"""

from __future__ import annotations

import torch
import torch.fx
from xdsl.dialects import arith
from xdsl.dialects.builtin import f32

from loom.errors import UnsupportedError
from loom.frontend.batch_blocks import tile_symbol
from loom.frontend.tiles import Tile, target_name
from loom.ir.dialect import ReadOp


class AtomicLowering:
    """`hl.atomic_add` of `KernelLowering` (a mixin: it uses the lowering's access and compute helpers)."""

    def lower_atomic_add(self, node: torch.fx.Node, env: dict) -> None:
        dest_node, index, value = node.args[:3]
        if node.users:
            raise UnsupportedError("the value an `hl.atomic_add` returns (the old contents) is not supported; "
                                   "expected the add as a statement", self.k.location(node))
        if node.graph is not self.k.root:
            raise UnsupportedError("`hl.atomic_add` inside a device loop is not supported yet; expected it in the "
                                   "body of the top-level `hl.tile` loop, after the inner loops", self.k.location(node))
        named = {tile_symbol(e.args[0] if target_name(e) == "tile_begin" else e)  # a tile, or a one-wide tile's start
                 for e in index if isinstance(e, torch.fx.Node)}
        shared = [self.k.blocks[b].label for b in self.k.grid_block_ids if self.k.blocks[b].symbol not in named]
        if shared:
            raise UnsupportedError(
                f"`hl.atomic_add` into positions that several tiles of the grid share (`{shared[0]}` is not in its "
                "index): Tenstorrent has no atomic adds in DRAM; supported are adds where every grid dimension is "
                "in the index, and split reductions whose grid dimension a nested loop walks "
                "(`for k in hl.tile(outer_k.begin, outer_k.end)`, the loop's values starting at zero)",
                self.k.location(node))
        name = dest_node.args[0]
        if name not in self.k.host_tensors and name not in self.zeroed:
            raise UnsupportedError(
                f"`hl.atomic_add` into `{name}`, which the host code creates other than filled with zeros: Loom's "
                f"per-core programs start the tensors the host code creates at zero; expected `{name} = "
                "torch.zeros(…)` (or `zeros_like`, `new_zeros`), or the tensor passed in as an argument",
                self.k.location(node))
        dest = env[dest_node]
        acc = self.access(node, dest.type.get_shape(), list(index))
        read = self.located(ReadOp(self.subview(dest, acc, node), self.tensor_type(acc.tile_dims,
                                                                                  dest.type.element_type)), node)
        old = Tile(read.result, acc.tile_dims)
        added = env[value] if isinstance(value, torch.fx.Node) else value  # a tile, or a number
        formats = {dest.type.element_type, added.value.type.element_type if isinstance(added, Tile) else f32}
        wide = f32 if f32 in formats else dest.type.element_type  # the add in the wider format
        total = self.elementwise_tiles(node, [old, added], acc.tile_dims, wide, arith.AddfOp)
        if wide != dest.type.element_type:  # the sum rounded once to the destination's format
            total = self.elementwise_tiles(node, [total], acc.tile_dims, dest.type.element_type, None)
        self.store_value(node, dest, list(index), total)
