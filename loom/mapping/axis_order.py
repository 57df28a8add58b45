"""Axis scores, their dominance order, and the axis orders worth trying (its linear extensions).

For each program axis (a dimension of the launch grid) Loom scores
- ParallelExtent: how much work can be spread along it (the extent it tiles),
- ReuseVolume: bytes of global tensors whose accesses do not depend on it (shared when the axis
  is spread over cores),
- ReuseAccessCount: how many accesses those are.
Axis a goes before axis b only when a dominates b in all three scores; otherwise both orders stay.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations


@dataclass(frozen=True)
class AxisScore:
    axis: str
    parallel_extent: int
    reuse_volume: int
    reuse_access_count: int

    def as_tuple(self) -> tuple[int, int, int]:
        return (self.parallel_extent, self.reuse_volume, self.reuse_access_count)

    def dominates(self, other: AxisScore) -> bool:
        mine, theirs = self.as_tuple(), other.as_tuple()
        return all(a >= b for a, b in zip(mine, theirs)) and mine != theirs


def dominance_edges(scores: list[AxisScore]) -> set[tuple[str, str]]:
    """(a, b) when a must come before b."""
    return {(a.axis, b.axis) for a in scores for b in scores if a.dominates(b)}


def linear_extensions(axes: list[str], before: set[tuple[str, str]]) -> list[tuple[str, ...]]:
    """Every total order of `axes` that respects `before`, in a deterministic order."""
    result: list[tuple[str, ...]] = []

    def extend(prefix: tuple[str, ...], remaining: list[str]) -> None:
        if not remaining:
            result.append(prefix)
            return
        for axis in remaining:
            if not any((other, axis) in before for other in remaining if other != axis):
                extend(prefix + (axis,), [a for a in remaining if a != axis])

    extend((), list(axes))
    return result


def brute_force_extensions(axes: list[str], before: set[tuple[str, str]]) -> list[tuple[str, ...]]:
    """Reference for tests: filter all permutations."""
    return [p for p in permutations(axes) if all(p.index(a) < p.index(b) for a, b in before)]
