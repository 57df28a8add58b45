"""The model's trip counts of a loop to an enclosing tile's end (`hl.tile(0, tile_m.end)`): the busiest
core's average, contiguous or balanced in block pairs (`LatencyModel.twice_trips_until`)."""

from __future__ import annotations

from loom.model import expr as E
from loom.model.heg import Compute, For, Until
from loom.model.latency import LatencyModel


def _twice(spatial: int, balanced: int, extent: int = 2048, outer: int = 32, inner: int = 32) -> int:
    loop = For("tile_n_idx", (extent, "tile_n"), Compute([]), until=Until("tile_m", extent, "tile_m", spatial))
    values = {"tile_m": outer, "tile_n": inner, loop.until.knob: balanced}
    return E.evaluate(LatencyModel.twice_trips_until(loop), values)


def test_one_core_runs_the_whole_triangle():
    # 64 query blocks on one core: (1 + 2 + ... + 64) / 64 = 32.5 key blocks per query block
    assert _twice(1, 0) == 65


def test_a_contiguous_range_prices_the_last_core_and_pairs_price_the_mean():
    # 64 blocks over 32 cores, 2 each: the last core runs blocks 62 and 63 (63 + 64 trips); in pairs
    # every core runs i and 63 - i (65 trips)
    assert _twice(32, 0) == 127
    assert _twice(32, 1) == 65


def test_a_query_block_of_several_key_blocks_scales_the_trips():
    # blocks of 64 queries and 32 keys: 32 query blocks, each 2 (i + 1) key blocks; one core averages 33
    assert _twice(1, 0, outer=64, inner=32) == 66


def _trips(extent: int, outer: int, inner: int, blocks: range) -> list[int]:
    """Each outer block's trips, ceil((i + 1) outer / inner), as the per-core programs count them."""
    return [-(-min((i + 1) * outer, extent) // inner) for i in blocks]


def test_a_key_block_of_several_query_blocks_counts_whole_key_blocks():
    # blocks of 32 queries and 128 keys: query block i runs ceil((i + 1) / 4) key blocks, 1 1 1 1 2 2 2 2 ...;
    # 64 blocks on one core average 8.5, in pairs too; the last 8 of 8 cores run 4 x 15 + 4 x 16 (the count is
    # exact over whole groups of 4 query blocks; a range of 2 blocks is priced within half a trip)
    assert _twice(1, 0, outer=32, inner=128) == 2 * sum(_trips(2048, 32, 128, range(64))) // 64 == 17
    assert _twice(32, 1, outer=32, inner=128) == 17
    assert _twice(8, 0, outer=32, inner=128) == 2 * sum(_trips(2048, 32, 128, range(56, 64))) // 8 == 31
    assert _twice(32, 0, outer=32, inner=128) - sum(_trips(2048, 32, 128, range(62, 64))) == 1


def test_the_diagonal_holds_one_key_block_when_it_is_the_larger():
    loop = For("tile_n_idx", (2048, "tile_n"), Compute([]), until=Until("tile_m", 2048, "tile_m", 1))
    assert E.evaluate(LatencyModel.diagonal_blocks(loop), {"tile_m": 32, "tile_n": 128}) == 1
    assert E.evaluate(LatencyModel.diagonal_blocks(loop), {"tile_m": 128, "tile_n": 32}) == 4
