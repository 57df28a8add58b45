"""Permuted layouts: a tensor whose tiles run across a dimension that a point index separates from the
last one is held on the device with its point-indexed dimensions first.

Tensix moves 2-D tiles of a tensor's last two dimensions. Mamba's and gated-delta-net's kernels read
`x[b.begin, tile_t, h.begin, tile_d]` of a [batch, seqlen, heads, dhead] tensor: the tile's rows run along
seqlen, one head apart in memory, and no 32 x 32 tile of the [heads, dhead] planes holds them. The host
that lays the tensor out in tiles (as `ttnn.from_torch` does, or a `ttnn.permute` before the kernel) can
as well lay it out as [batch, heads, seqlen, dhead]: then the read is the ordinary tile
`x'[b.begin, h.begin, tile_t, tile_d]`. So where every access of a tensor indexes one dimension (not the
last) by a point (an integer, a tile's start or id, a grid index), and some access tiles a dimension
before it, the tensor is held permuted, those dimensions moved first in their order, the rest after in
theirs. The Device IR's accesses and the tensor's value are rewritten in place before anything reads
them, so every later stage sees an ordinary tensor; the host boundary (`loom.run.padded_inputs`, the
outputs the run compares) permutes the caller's data in and back out. The permutation is the host's
layout work, as tilizing is: it is not in the simulated time.
"""

from __future__ import annotations

import torch
import torch.fx

from loom.frontend.tiles import target_name

_ACCESSES = ("load", "store", "atomic_add")  # Helion's device ops on a tensor: (tensor, index, ...)
UNPERMUTED = "loom.unpermuted"
_DONE = "loom.layout"  # an access rewritten to its tensor's order: Helion keeps a bound kernel's Device IR, and
# a second trace of the same arguments (`loom.lower`, then `compile`) finds it so


def permute_layouts(graphs: list[torch.fx.Graph], host_tensors: dict[str, torch.Tensor],
                    block_symbols: set) -> dict[str, tuple[int, ...]]:
    """The device layout of every tensor held permuted (see the module), as the order of its dimensions
    (`x.permute(order)`), by name; the accesses in `graphs` and the tensors' values (`host_tensors` and each
    `_host_tensor` node's) rewritten to it. `block_symbols`: the block-size symbols of the kernel's tiles."""
    accesses: dict[str, list[torch.fx.Node]] = {}
    for graph in graphs:
        for node in graph.nodes:
            if target_name(node) in _ACCESSES and target_name(node.args[0]) == "_host_tensor":
                accesses.setdefault(node.args[0].args[0], []).append(node)
    layouts = {}
    for name, nodes in accesses.items():
        done = next((n.meta[_DONE] for n in nodes if _DONE in n.meta), None)  # Helion's cached trace, rewritten
        order = done or _order(nodes, block_symbols)
        if order is None:
            continue
        layouts[name] = order
        for node in nodes if done is None else ():
            index = list(node.args[1])
            node.args = (node.args[0], [index[d] for d in order], *node.args[2:])
            node.meta[_DONE] = order
        for tensor in {node.args[0] for node in nodes} if done is None else ():
            tensor.meta[UNPERMUTED] = tensor.meta["val"]  # what the host code made (`helion._host_views` reads it)
            tensor.meta["val"] = tensor.meta["val"].permute(order)
        if name in host_tensors:
            host_tensors[name] = host_tensors[name].permute(order)
    return layouts


def _order(nodes: list[torch.fx.Node], block_symbols: set) -> tuple[int, ...] | None:
    """The permuted order of one tensor's dimensions from its accesses, or None where it stays as it is."""
    points = []
    for node in nodes:
        tensor, index = node.args[0].meta.get("val"), list(node.args[1])
        if not isinstance(tensor, torch.Tensor) or len(index) != tensor.dim() or None in index:
            return None  # a vector's forms (`v[None, :]`) and other index forms keep their own layouts
        points.append([_is_point(entry, block_symbols) for entry in index])
    rank = len(points[0])
    moved = [d for d in range(rank - 1) if all(p[d] for p in points)]  # the last dimension stays last
    crossed = any(p[d] and not all(p[:d]) for p in points for d in moved)  # a tile runs across a point
    if not crossed:
        return None
    return (*moved, *(d for d in range(rank) if d not in moved))


def _is_point(entry: object, block_symbols: set) -> bool:
    """Whether an index entry picks one position: an integer, or a scalar (a tile's start or id, a grid
    index, arithmetic on them); a tile, a slice and a tensor of positions (`tile.index + k`) span several."""
    if isinstance(entry, bool) or isinstance(entry, int):
        return True
    if not isinstance(entry, torch.fx.Node):
        return False
    value = entry.meta.get("val")
    if not isinstance(value, torch.SymInt):
        return False
    return value.node.expr not in block_symbols  # a tile's own symbol is the tile (`x[tile_m]`)
