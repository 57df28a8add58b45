"""Head groups: a grid index of size 1 split as `h // group` and `h % group` (grouped-query attention's
K/V head `h.begin // group`; a flattened batch-head index `bh // heads`, `bh % heads`).

`k[b.begin, h.begin // group, tile_n, :]` reads one K/V head for every `group` query heads, and
`out[bh // heads, bh % heads, tile_m, :]` writes the head `bh` of a [batch, heads, ...] tensor from a grid
over batch x heads. A floor division or a remainder is not affine, and an index the per-core programs use
must be; and the cores of one group read the same K/V, which the mapping can only see if the grid says so.
So the grid axis of `h` (extent H) is laid out as two axes: `h_group` (extent H / group) and `h_in_group`
(extent group), with `h = h_group * group + h_in_group`, `h // group = h_group` and `h % group = h_in_group`.
All three are affine, and `h_in_group` is an axis along which K/V do not change: the mapping may multicast
them there. The divisor is an integer or a scalar argument (its value at compile time).
"""

from __future__ import annotations

import operator

import torch
import torch.fx
from torch.utils._sympy.functions import FloorDiv, PythonMod

from loom.errors import UnsupportedError
from loom.frontend.helion import TracedKernel
from loom.frontend.tiles import target_name

DIVIDED, REMAINDER = "//", "%"


def grouped_index(kernel: TracedKernel, node: torch.fx.Node) -> tuple[int, int, str] | None:
    """(grid block id, divisor, DIVIDED or REMAINDER) when `node` is `h.begin // group`, or a symbolic
    `bh // heads` / `bh % heads` of a grid index (`hl.grid`) by an integer or a scalar argument; else None."""
    if node.target is operator.floordiv and isinstance(node.args[1], int):
        start = node.args[0]
        if not isinstance(start, torch.fx.Node) or target_name(start) != "tile_begin":
            return None
        value = start.args[0].meta.get("val") if isinstance(start.args[0], torch.fx.Node) else None
        block = _grid_block(kernel, value.node.expr) if isinstance(value, torch.SymInt) else None
        return (block, node.args[1], DIVIDED) if block is not None else None
    value = node.meta.get("val")
    expr = value.node.expr if target_name(node) == "_get_symnode" and isinstance(value, torch.SymInt) else None
    if not isinstance(expr, (FloorDiv, PythonMod)):
        return None
    index, divisor = expr.args
    block = kernel.grid_indices.get(index)
    divisor = int(divisor) if divisor.is_Integer else kernel.scalars.get(str(divisor))
    if block is None or not isinstance(divisor, int) or isinstance(divisor, bool):
        return None
    return block, divisor, DIVIDED if isinstance(expr, FloorDiv) else REMAINDER


def head_groups(kernel: TracedKernel) -> dict[int, int]:
    """Grid block id -> group, for each grid tile of size 1 whose index the kernel floor-divides (or takes
    the remainder of) by a number that divides its extent (the same one at every use)."""
    groups: dict[int, int] = {}
    for graph in kernel.graphs():
        for node in graph.nodes:
            found = grouped_index(kernel, node)
            if found is None:
                continue
            block_id, group, _ = found
            block = kernel.blocks[block_id]
            if block.fixed != 1 or group <= 1 or block.extent % group:
                continue
            if groups.setdefault(block_id, group) != group:
                raise UnsupportedError(f"`{block.label}` is divided by both {groups[block_id]} and {group}; "
                                       "expected one group size per tile", kernel.location(node))
    return groups


def _grid_block(kernel: TracedKernel, symbol: object) -> int | None:
    """The grid block whose tile symbol is `symbol`, if any."""
    grid = set(kernel.grid_block_ids)
    return next((b.block_id for b in kernel.blocks.values() if b.symbol == symbol and b.block_id in grid), None)
