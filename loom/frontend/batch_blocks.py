"""Batch blocks: a tile that indexes only leading (batch) dimensions runs with block size 1, and its
dimension vanishes from the per-core tiles.

Tensix moves and computes 2-D tiles; a dimension before a tensor's last two is never laid out in
32 x 32 tiles. Helion's `for tile_b, tile_m, tile_n in hl.tile([b, m, n])` leaves `tile_b`'s block
size to the autotuner, and a kernel is correct for every block size, so Loom fixes it at 1: each
core works on one batch slice at a time and the batch extent may be anything (4, 3, 1). Within the
slice, `x[tile_b, tile_m, tile_k]` is the 2-D tile `x[tile_b.begin, tile_m, tile_k]`, and the
slice's 3-D ops (`torch.baddbmm`, `amax(dim=2)`, `[:, :, None]`) are lowered without the batch
dimension (`KernelLowering.dims_of`, `batch_positions`).
"""

from __future__ import annotations

import dataclasses

import torch

from loom.frontend.helion import TracedKernel
from loom.frontend.tiles import target_name


def with_batch_blocks_of_one(kernel: TracedKernel) -> tuple[TracedKernel, set[int]]:
    """`kernel` with the block size of every batch block (see the module) fixed at 1, and their ids. A
    leading block the source fixes at another size stays as it is (the access refuses it). A batch block
    may also index the second-to-last dimension of a tensor (`lse[tile_b, tile_m]`): that tensor is then a
    batch of vectors, laid out like a rank-1 tensor in each slice (`global_tensors.vector_layouts`)."""
    leading, trailing = _indexed_dims(kernel)
    batch = {i for i in leading - trailing if kernel.blocks[i].fixed in (None, 1)}
    blocks = {i: dataclasses.replace(b, fixed=1) if i in batch else b for i, b in kernel.blocks.items()}
    return dataclasses.replace(kernel, blocks=blocks), batch


def _indexed_dims(kernel: TracedKernel) -> tuple[set[int], set[int]]:
    """Block ids that index a leading dimension of a global tensor, and those that index its last one,
    over every load and store of the kernel."""
    by_symbol = {b.symbol: b.block_id for b in kernel.blocks.values()}
    leading: set[int] = set()
    trailing: set[int] = set()
    scalars: set[int] = set()  # blocks that index a rank-1 tensor (`advantages[tile_b]`)
    for graph in kernel.graphs():
        for node in graph.nodes:
            if target_name(node) not in ("load", "store") or target_name(node.args[0]) != "_host_tensor":
                continue
            tensor = node.args[0].meta.get("val")
            index = list(node.args[1])
            if not isinstance(tensor, torch.Tensor) or None in index or len(index) != tensor.dim():
                continue  # rank-1 layouts and other index forms: their blocks are not batch blocks
            for dim, entry in enumerate(index):
                block = by_symbol.get(tile_symbol(entry))
                if block is not None:
                    if dim < len(index) - 2:
                        leading.add(block)
                    elif len(index) == 1:
                        scalars.add(block)
                    elif dim == len(index) - 1:
                        trailing.add(block)
    # a block that also indexes a leading dimension reads one value of a rank-1 tensor per batch slice
    return leading, trailing | (scalars - leading)


def tile_symbol(entry: object) -> object:
    """The block-size symbol of a tile index entry (`tile_b`), else None."""
    if not isinstance(entry, torch.fx.Node) or target_name(entry) not in ("_get_symnode", "aten.sym_size.int"):
        return None
    value = entry.meta.get("val")
    return value.node.expr if isinstance(value, torch.SymInt) else None
