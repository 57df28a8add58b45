"""Per-tile partials: a tensor with one slice per tile of a launch-grid loop, sized by that loop's block.

Helion's backward kernels reduce across the tiles of the grid on the host: each tile of an outer loop
accumulates a partial result and stores it at its own slice, which the host code then sums
(`rms_norm_bwd`):

    m_block = hl.register_block_size(m)
    partial = x.new_empty([(m + m_block - 1) // m_block, n])
    for tile in hl.tile(m, block_size=m_block):
        ...
        partial[tile.id, :] = acc
    return partial.sum(0)

The tensor's first size depends on the block size, which Loom leaves to the solver, so Helion leaves it
symbolic. Loom lays it out at its largest, for the smallest block the solver may choose (the block
alignment), as a batch of vectors, one per tile id, each a row or column of tiles as the stored value lies
(`global_tensors.vector_layouts`): different cores never share a DRAM tile. Only the slices of the chosen
block's tiles are written; the host code runs with that block size and reads those (`loom.host_epilogue`;
the kernel's function carries the tensor's name in `loom.partials`).
"""

from __future__ import annotations

import sympy
import torch
import torch.fx

from loom.frontend.tiles import target_name


def partial_sizes(tensor: torch.Tensor, accesses: list[torch.fx.Node], grid_symbols: set,
                  extents: dict, alignment: int) -> torch.Tensor | None:
    """`tensor` (a tensor the host code creates) laid out at its largest, where it is a per-tile partials
    tensor: every size that Helion leaves symbolic depends only on the block size of a launch-grid loop, and
    every load and store indexes that dimension by `tile.id` of that loop. None otherwise.

    `grid_symbols` are the grid blocks' size symbols, `extents` each symbol's extent (the dimension it tiles)."""
    sizes = []
    for dim, size in enumerate(tensor.shape):
        if isinstance(size, int):
            sizes.append(size)
            continue
        expr = size.node.expr if isinstance(size, torch.SymInt) else sympy.sympify(size)
        symbols = expr.free_symbols
        if len(symbols) != 1 or not symbols <= grid_symbols:
            return None
        (symbol,) = symbols
        if not accesses or not all(_indexed_by_id(node, dim, symbol) for node in accesses):
            return None
        sizes.append(max(int(expr.subs(symbol, block)) for block in _blocks(extents[symbol], alignment)))
    return torch.empty(sizes, dtype=tensor.dtype, device="meta")


def _blocks(extent: int, alignment: int) -> list[int]:
    """Every block size the solver may give a dimension of `extent`: multiples of the alignment up to the
    extent rounded up to one (an upper bound of the sizes a partials tensor takes)."""
    top = -(-extent // alignment) * alignment
    return list(range(alignment, top + 1, alignment))


def _indexed_by_id(access: torch.fx.Node, dim: int, symbol: object) -> bool:
    index = list(access.args[1])
    if dim >= len(index) or not isinstance(index[dim], torch.fx.Node) or target_name(index[dim]) != "tile_id":
        return False
    value = index[dim].args[0].meta.get("val")
    return isinstance(value, torch.SymInt) and value.node.expr == symbol


def is_tile_id(entry: object, grid_symbols: set) -> bool:
    """An index entry that is `tile.id` of a launch-grid loop (the slice of a per-tile partials tensor)."""
    if not isinstance(entry, torch.fx.Node) or target_name(entry) != "tile_id":
        return False
    value = entry.args[0].meta.get("val")
    return isinstance(value, torch.SymInt) and value.node.expr in grid_symbols


__all__ = ["is_tile_id", "partial_sizes"]
