"""Head groups: a grid tile of size 1 indexed as `h.begin // group` (grouped-query attention's K/V head).

`k[b.begin, h.begin // group, tile_n, :]` reads one K/V head for every `group` query heads. A
floor division is not affine, and an index the per-core programs use must be; and the cores of one
group read the same K/V, which the mapping can only see if the grid says so. So the grid axis of
`h` (extent H) is laid out as two axes: `h_group` (extent H / group, the K/V head) and `h_in_group`
(extent group), with `h = h_group * group + h_in_group` and `h // group = h_group`. Both are affine,
and `h_in_group` is an axis along which K/V do not change: the mapping may multicast them there.
"""

from __future__ import annotations

import operator

import torch
import torch.fx

from loom.errors import UnsupportedError
from loom.frontend.helion import TracedKernel
from loom.frontend.tiles import target_name


def head_groups(kernel: TracedKernel) -> dict[int, int]:
    """Grid block id -> group, for each grid tile of size 1 whose start the kernel floor-divides by an
    integer that divides its extent (the same one at every use)."""
    grid = set(kernel.grid_block_ids)
    by_symbol = {b.symbol: b for b in kernel.blocks.values()}
    groups: dict[int, int] = {}
    for graph in kernel.graphs():
        for node in graph.nodes:
            if node.target is not operator.floordiv or not isinstance(node.args[1], int):
                continue
            start = node.args[0]
            if not isinstance(start, torch.fx.Node) or target_name(start) != "tile_begin":
                continue
            value = start.args[0].meta.get("val") if isinstance(start.args[0], torch.fx.Node) else None
            block = by_symbol.get(value.node.expr) if isinstance(value, torch.SymInt) else None
            group = node.args[1]
            if block is None or block.block_id not in grid or block.fixed != 1 or group <= 1 or block.extent % group:
                continue
            if groups.setdefault(block.block_id, group) != group:
                raise UnsupportedError(f"`{block.label}.begin` is divided by both {groups[block.block_id]} and "
                                       f"{group}; expected one group size per tile", kernel.location(node))
    return groups
