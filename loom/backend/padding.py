"""How far a global tensor is padded: to whole tiles, and to every block that reads or writes it.

A block size need not divide its dimension (`loom.mapping.block_sizes`): the last block reaches past
the tensor's tiles. Cores that share a multicast along an axis run in lockstep, each the busiest
core's blocks, so along such an axis the blocks reach as far as cores x that core's trips. A loop
over an enclosing tile (`hl.tile(tile_m.begin, tile_m.end)`) walks the enclosing tile's last block
whole, so its blocks reach as far as the enclosing tile's do. The per-core programs compute whole
blocks on the padding; DRAM moves only the tiles that hold data (`Tensor.valid`).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import SSAValue


def whole_tiles(shape: list[int], tile: tuple[int, int]) -> tuple[int, int]:
    """The last two dimensions of `shape` rounded up to whole tiles."""
    return tuple(-(-s // t) * t for s, t in zip(shape[-2:], tile))


def padded_shape(arg: SSAValue, shape: list[int], tile: tuple[int, int], sizes: dict[str, int],
                 lockstep_blocks: Callable[[str], int | None], within: dict[str, str]) -> tuple[int, ...]:
    """`arg`'s shape padded to whole tiles and to the reach of every block of its accesses (module
    docstring). `lockstep_blocks(label)`: the blocks every core of a lockstep axis of that block size
    runs in total, or None; `within`: a loop's block label -> the enclosing tile's it walks."""
    padded = list(shape[:-2]) + list(whole_tiles(shape, tile))
    for sv in [u.operation for u in arg.uses if isinstance(u.operation, memref.SubviewOp)]:
        dynamic = iter(sv.sizes)
        for dim, size in enumerate(sv.static_sizes.get_values()):
            if size != DYNAMIC_INDEX:
                continue
            label = next(dynamic).owner.label
            while label in sizes:  # a block size, then the enclosing tile's it walks, if any
                block = sizes[label]
                blocks = lockstep_blocks(label) or -(-shape[dim] // block)
                padded[dim] = max(padded[dim], blocks * block)
                label = within.get(label)
    return tuple(padded)
