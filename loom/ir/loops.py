"""The trip count of a device loop to an enclosing tile's end, as stage 1 builds it and later stages read it."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.ir import SSAValue


@dataclass(frozen=True)
class UntilBounds:
    """`scf.for … loom.until` runs ceil(min(end, extent) / block) trips, `end` = (i + 1) × `outer_block`, i the
    enclosing tile's index, or `end` = extent − i × `outer_block` for a loop from that tile's start
    (`KernelLowering.bounded_trip_count`)."""

    end: SSAValue
    outer_block: SSAValue
    extent: SSAValue
    block: SSAValue


def until_bounds(loop: scf.ForOp) -> UntilBounds | None:
    """The parts of a loop's trip count to an enclosing tile's end; None for any other loop."""
    if "loom.until" not in loop.attributes:
        return None
    ceil = loop.ub.owner
    assert isinstance(ceil, arith.CeilDivUIOp) and isinstance(ceil.lhs.owner, arith.MinUIOp)
    least = ceil.lhs.owner
    product = least.lhs.owner  # (i + 1) × outer block, or, from the tile's start, extent − i × outer block
    if isinstance(product, arith.SubiOp):
        product = product.rhs.owner
    return UntilBounds(least.lhs, product.rhs, least.rhs, ceil.rhs)
