"""Logical views of the core array: how many cores take part and how their parallelism is organised.

A view splits each physical dimension of the worker grid into ordered levels: `x8_y4y2` sees an
8x8 mesh as x = [8] and y = [4, 2]. Level l of every physical dimension later goes to the program
axis of priority l, so a level-0 factor of 1 (`x8_y1y8`) is how a dimension skips the first axis.
Partial occupancy uses fewer cores than the dimension has (`x4_y8`): useful when the program's
parallelism along an axis is smaller than the grid.
Nothing here knows a particular chip: the grid extents come from the architecture description.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

DIM_NAMES = ("x", "y", "z")


@dataclass(frozen=True)
class View:
    """Per physical dimension, the level factors (product = the cores used along that dimension)."""

    levels: tuple[tuple[int, ...], ...]

    @property
    def occupancy(self) -> tuple[int, ...]:
        out = []
        for factors in self.levels:
            product = 1
            for f in factors:
                product *= f
            out.append(product)
        return tuple(out)

    @property
    def cores(self) -> int:
        total = 1
        for n in self.occupancy:
            total *= n
        return total

    @property
    def depth(self) -> int:
        return max((len(f) for f in self.levels), default=0)

    @property
    def name(self) -> str:
        return "_".join(
            DIM_NAMES[d] + DIM_NAMES[d].join(str(f) for f in factors) if factors else f"{DIM_NAMES[d]}1"
            for d, factors in enumerate(self.levels)
        )


@cache
def ordered_factorizations(n: int, max_parts: int) -> tuple[tuple[int, ...], ...]:
    """All ordered ways to write n as a product of at most `max_parts` factors >= 2 (n=1: one empty way)."""
    if n == 1:
        return ((),)
    if max_parts == 0:
        return ()
    found = []
    for first in range(2, n + 1):
        if n % first == 0:
            for rest in ordered_factorizations(n // first, max_parts - 1):
                found.append((first,) + rest)
    return tuple(found)


def dimension_levels(extent: int, max_levels: int) -> list[tuple[int, ...]]:
    """The level tuples of one physical dimension of size `extent`, at most `max_levels` deep.

    An ordered factorization of the occupied extent, optionally preceded by a 1 that hands
    level 0 of this dimension to nobody (so its parallelism goes to a lower-priority axis).
    """
    out: list[tuple[int, ...]] = []
    for occupied in occupancies(extent):
        for factors in ordered_factorizations(occupied, max_levels):
            out.append(factors)
            if factors and len(factors) < max_levels:
                out.append((1,) + factors)
    return out


def occupancies(extent: int) -> list[int]:
    """Cores used along a dimension: all of them, or a power of two below that (partial occupancy)."""
    values = {extent}
    power = 1
    while power < extent:
        values.add(power)
        power *= 2
    return sorted(values, reverse=True)


def enumerate_views(grid_dims: tuple[int, ...] | list[int], program_axes: int) -> list[View]:
    """Every view of the grid with at most `program_axes` levels per physical dimension."""
    per_dim = [dimension_levels(extent, max(program_axes, 1)) for extent in grid_dims]
    views = [View(())]
    for options in per_dim:
        views = [View(v.levels + (o,)) for v in views for o in options]
    return views
