"""A block several cores read (`Transfer.receivers` > 1): the rectangle of cores that share a multicast,
and the store-and-forward handshakes down a line of cores (`forward_row` / `forward_column`)."""

from __future__ import annotations

from loom.backend import program as P


def group_rect(coord: tuple[int, ...], group: tuple[int, ...]) -> tuple[tuple, tuple]:
    """The contiguous rectangle of cores sharing this core's multicast (innermost levels)."""
    lo = tuple(c - c % g for c, g in zip(coord, group))
    hi = tuple(start + g - 1 for start, g in zip(lo, group))
    return lo, hi


def forward(coord, group, reads: list, cb: str, ready: str, valid: str) -> list:
    """A block forwarded down a line of cores: the first reads it from DRAM; each later core,
    once its slot is reserved, tells its predecessor (`ready`) and waits for the block
    (`valid`); every core but the last then waits for its successor's `ready`, writes the
    block into the successor's reserved slot and sets its `valid` after the write landed."""
    dim = next(d for d, g in enumerate(group) if g > 1)
    position, last = coord[dim] % group[dim], group[dim] - 1
    step = [1 if d == dim else 0 for d in range(len(coord))]
    pred = tuple(c - s for c, s in zip(coord, step))
    succ = tuple(c + s for c, s in zip(coord, step))
    if position == 0:
        code = [*reads, P.Barrier("reads")]
    else:
        code = [P.SemInc(ready, 1, core=pred), P.SemWait(valid, 1), P.SemSet(valid, 0)]
    if position < last:
        code += [P.SemWait(ready, 1), P.SemSet(ready, 0), P.Write(succ, cb, src="back"), P.Barrier(),
                 P.SemInc(valid, 1, core=succ)]
    return code


__all__ = ["forward", "group_rect"]
