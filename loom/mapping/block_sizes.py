"""The block sizes a dimension may take: the one rule stage 4's pre-filters and stage 5's domains share.

A block is a multiple of the architecture's block alignment (32). A dimension is padded to whole
tiles (1000 -> 1024, `loom.frontend.tails`); its block sizes are those dividing the padded extent,
and, where no reduction masks its tail (`exact` False), also the powers of two times the alignment
up to that extent: the last block then reaches past the tensor's tiles, the per-core programs pad
the tensor to whole blocks, and DRAM moves only the tiles that hold data (`Tensor.valid`). A
dimension a masked reduction runs over keeps dividing blocks, so only a real tail is ever masked.
Where blocks may reach past the tiles, so may one core's share of them: for each number of cores an
axis can split over (a grid dimension, or the whole grid), ceil(tiles / cores) tiles is a block too,
as TTNN's per-core blocks are (64 tiles over Blackhole's 10 rows: 7 tiles, padded to 70).
"""

from __future__ import annotations


def padded_extent(extent: int, alignment: int) -> int:
    """`extent` rounded up to whole tiles."""
    return -(-extent // alignment) * alignment


def block_sizes(extent: int, alignment: int, exact: bool = False, shares: tuple[int, ...] = ()) -> list[int]:
    """Block sizes for a dimension of `extent` elements, ascending (see the module docstring); `shares`:
    the core counts an axis may split over."""
    padded = padded_extent(extent, alignment)
    sizes = {b for b in range(alignment, padded + 1, alignment) if padded % b == 0}
    if not exact:
        power = alignment
        while power <= padded:
            sizes.add(power)
            power *= 2
        sizes |= {-(-padded // (alignment * cores)) * alignment for cores in shares if cores > 0}
    return sorted(sizes)
