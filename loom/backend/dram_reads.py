"""The reads of one block from DRAM, spread over two NoCs: its first tile rows (its first tiles, for a
one-row block) on the NoC its engine does not drive, the rest on its own (the share is
`loom.mapping.engines.spread_reads`'s)."""

from __future__ import annotations

from loom.backend import program as P


def block_reads(tensor: str, index: tuple, cb: str, rows: int, cols: int, elsewhere: int, other: int,
                own: int | None = None) -> list:
    """`DramRead`s of a `rows x cols` block on NoC `own` (None: the engine's) whose first `elsewhere` parts
    (tile rows; tiles of a one-row block) go on NoC `other`, at their offsets in the circular buffer."""
    whole = rows if rows > 1 else cols
    if not elsewhere:
        return [P.DramRead(tensor, index, cb, rows, cols, noc=own)]
    if elsewhere == whole:
        return [P.DramRead(tensor, index, cb, rows, cols, noc=other)]
    if rows > 1:
        rest = (*index[:-2], P.Affine.of(index[-2]) + elsewhere, index[-1])
        return [P.DramRead(tensor, index, cb, elsewhere, cols, noc=other),
                P.DramRead(tensor, rest, cb, rows - elsewhere, cols, offset=elsewhere * cols, noc=own)]
    rest = (*index[:-1], P.Affine.of(index[-1]) + elsewhere)
    return [P.DramRead(tensor, index, cb, 1, elsewhere, noc=other),
            P.DramRead(tensor, rest, cb, 1, cols - elsewhere, offset=elsewhere, noc=own)]
