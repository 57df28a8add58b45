"""The reads of one block from DRAM, spread over two NoCs: its first tile rows (its first tiles, for a
one-row block) on the NoC its engine does not drive, the rest on its own (the share is
`loom.mapping.engines.spread_reads`'s)."""

from __future__ import annotations

import itertools
from dataclasses import replace

from xdsl.ir import SSAValue

from loom.backend import program as P


def leading_blocks(index: tuple, leading: tuple[int, ...], tiles: int) -> list[tuple[tuple, int]]:
    """(tile index, tile offset in the buffer) of each `tiles`-tile 2-D block of a block that spans
    `leading` positions of the leading dimensions at `index` (outermost first, as the buffer folds
    them into its rows)."""
    n = len(leading)
    return [(tuple(P.Affine.of(i) + p for i, p in zip(index[:n], at)) + tuple(index[n:]), k * tiles)
            for k, at in enumerate(itertools.product(*(range(e) for e in leading)))]


def block_reads(tensor: str, blocks: list[tuple[tuple, int]], cb: str, rows: int, cols: int, elsewhere: int,
                other: int, own: int | None = None, clip: bool = False) -> list:
    """`DramRead`s of `rows x cols` blocks ((tile index, tile offset in the circular buffer) each,
    `leading_blocks`) on NoC `own` (None: the engine's), the first `elsewhere` parts of each (tile rows;
    tiles of a one-row block) on NoC `other`; `clip` as `DramRead.clip`."""
    reads = [read for index, offset in blocks for read in _reads(tensor, index, cb, rows, cols, elsewhere, other, own,
                                                                 offset)]
    return [replace(read, clip=True) for read in reads] if clip else reads


def clipped(view: SSAValue) -> bool:
    """Whether a global subview may reach outside its tensor (`loom.frontend.access`: `loom.clip`)."""
    return "loom.clip" in view.owner.attributes


def inside_span(view: SSAValue) -> tuple[str, int, int] | None:
    """Where a global subview reaching outside its tensor reads (`loom.clip_span`, `engines.engine_positions`)."""
    span = view.owner.attributes.get("loom.clip_span")
    return None if span is None else (span.data[0].data, span.data[1].data, span.data[2].data)


def _reads(tensor: str, index: tuple, cb: str, rows: int, cols: int, elsewhere: int, other: int,
           own: int | None, offset: int) -> list:
    whole = rows if rows > 1 else cols
    if not elsewhere:
        return [P.DramRead(tensor, index, cb, rows, cols, offset, noc=own)]
    if elsewhere == whole:
        return [P.DramRead(tensor, index, cb, rows, cols, offset, noc=other)]
    if rows > 1:
        rest = (*index[:-2], P.Affine.of(index[-2]) + elsewhere, index[-1])
        return [P.DramRead(tensor, index, cb, elsewhere, cols, offset, noc=other),
                P.DramRead(tensor, rest, cb, rows - elsewhere, cols, offset + elsewhere * cols, noc=own)]
    rest = (*index[:-1], P.Affine.of(index[-1]) + elsewhere)
    return [P.DramRead(tensor, index, cb, 1, elsewhere, offset, noc=other),
            P.DramRead(tensor, rest, cb, 1, cols - elsewhere, offset + elsewhere, noc=own)]
