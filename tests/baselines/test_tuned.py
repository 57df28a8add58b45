"""TTNN hand-tuned, the second baseline (loom.baselines.ttnn_hand_tuned, loom.baselines.tuned_schedules):
the GEMM_FLOPS report test's rule, the sweep keeping the best simulated candidate, production SDPA
chunk sizes with TTNN's K/V chains, and decode left at TTNN's default."""

from __future__ import annotations

import pytest

from loom.arch import load_arch
from loom.baselines.schedules import ttnn_flash_attention, ttnn_flash_decode
from loom.baselines.ttnn_hand_tuned import hand_tuned_matmul_configs, report_rule_blocks, report_subblock
from loom.baselines.ttnn_matmul import intermediate
from loom.baselines.tuned_schedules import candidates, keep_best, tuned_flash_attention, tuned_gemm, user_chunks
from loom.schedule import ScheduleError

WH = load_arch("wormhole_n150")
BH = load_arch("blackhole_p150")


def test_report_rule_keeps_per_divisor_the_first_output_split_that_fits():
    # per core 4 x 4 tiles, 4 K tiles per grid column: in0_block_w_div 1, 2, 4 (8, 16 do not divide 4);
    # a 4 x 4 block is refused, so each divisor takes the next split in order, 1 x 2 (out block 4 x 2)
    blocks = report_rule_blocks(4, 4, 4, fits=lambda b: b.out_block_h * b.out_block_w <= 8)
    assert [(b.in0_block_w_div, b.in0_block_w) for b in blocks] == [(1, 4), (2, 2), (4, 1)]
    assert {(b.num_out_blocks, b.out_block_h, b.out_block_w, b.out_subblock) for b in blocks} == \
        {((1, 2), 4, 2, (4, 2))}
    # a divisor whose in0 block alone is too large gives no candidate
    assert [b.in0_block_w for b in report_rule_blocks(4, 4, 4, fits=lambda b: b.in0_block_w <= 2)] == [2, 1]
    # a sharded output: whole-width blocks or one-tile-high ones, subblocks one tile high
    sharded = report_rule_blocks(4, 4, 1, fits=lambda b: b.out_block_w * b.out_block_h <= 4, out_sharded=True)
    assert [(b.out_block_h, b.out_block_w, b.out_subblock) for b in sharded] == [(1, 4, (1, 4))]
    assert report_subblock(4, 6, out_sharded=True) == (1, 6) and report_subblock(4, 6, out_sharded=False) == (4, 2)


def test_hand_tuned_configs_follow_the_rule_and_pad_where_the_grid_does_not_divide():
    # Wormhole 2048^3: 64 tiles over 8 x 8 cores: per core 8 x 8, K tiles per column 8 -> in0_block_w 8, 4, 2, 1
    configs = hand_tuned_matmul_configs(2048, 2048, 2048, WH)
    assert [c.in0_block_w for c in configs] == [8, 4, 2, 1]
    assert all((c.kind, c.per_core_M, c.per_core_N, c.out_block_h, c.out_block_w, c.fp32_dest_acc)
               == ("mcast_2d", 8, 8, 8, 8, False) for c in configs)
    # bf16 partials, one buffer with the output (packer L1 accumulation on, fp32 accumulation off)
    assert intermediate(configs[0], WH, packer_l1_acc=True).shared_with_output
    # Blackhole 13 x 10: per_core_M = ceil(64/10) = 7, per_core_N = ceil(64/13) = 5; Kt/grid_x = 4.9 -> 4
    bh = hand_tuned_matmul_configs(2048, 2048, 2048, BH)
    assert [(c.per_core_M, c.per_core_N, c.in0_block_w) for c in bh] == [(7, 5, 4), (7, 5, 2), (7, 5, 1)]
    assert "Kt = 64 is not a multiple of grid_x = 13" in bh[0].notes[0]
    schedules = tuned_gemm({"M": 2048, "N": 2048, "K": 2048}, BH)
    assert schedules[0].schedule.shape == {"M": 2240, "N": 2080, "K": 2048}  # padded as TTNN pads


def test_the_sweep_keeps_the_best_of_its_candidates():
    shape = {"M": 2048, "N": 2048, "K": 2048}
    swept = tuned_gemm(shape, WH)
    cycles = {32: 900.0, 64: 700.0, 128: 800.0}  # by tile_k; 256 cannot be simulated

    def simulate(baseline):
        tile_k = baseline.schedule.block_sizes["tile_k"]
        if tile_k not in cycles:
            raise ScheduleError("L1 footprint (test)")
        return cycles[tile_k]

    best = keep_best(swept, simulate)
    assert best.cycles == 700.0 and best.baseline.schedule.block_sizes["tile_k"] == 64
    assert best.simulated == 3 and len(best.refused) == 1 and "L1 footprint (test)" in best.refused[0]

    def refuse(baseline):
        raise ScheduleError("refused (test)")

    with pytest.raises(ScheduleError, match="no candidate runs"):
        keep_best(swept, refuse)


def test_the_sweep_keeps_the_best_simulated_candidate_on_loom_sim():
    from loom.bench.paper import _simulate
    from loom.kernel_file import load_kernel_file
    from loom.pipeline import compile as compile_kernel
    from tests.conftest import EXAMPLES

    shape = {"M": 512, "N": 512, "K": 512}
    source = load_kernel_file(EXAMPLES / "matmul.py")
    args = source.example_args(shape, meta=True)
    loom = compile_kernel(source.kernel, args, WH, shape=shape, jobs=1)
    swept = tuned_gemm(shape, WH)
    assert [b.schedule.block_sizes["tile_k"] for b in swept] == [64, 32]  # in0_block_w_div 1 and 2
    seen = {}

    def simulate(baseline):
        seen[id(baseline)] = _simulate(baseline, source, shape, args, None, loom)
        return seen[id(baseline)]

    best = keep_best(swept, simulate)
    assert len(seen) == 2 and best.cycles == min(seen.values()) == seen[id(best.baseline)]


def test_production_chunks_keep_ttnns_kv_chains():
    shape = {"B": 1, "H": 2, "L": 512, "D": 64}
    swept = tuned_flash_attention(shape, WH)
    assert sorted((b.schedule.block_sizes["tile_m"], b.schedule.block_sizes["tile_n"]) for b in swept) == \
        [(q, k) for q in (64, 128, 256) for k in (64, 128, 256)]
    for baseline in swept:  # each candidate chains the cores of a head exactly as the default baseline would
        q, k = baseline.schedule.block_sizes["tile_m"], baseline.schedule.block_sizes["tile_n"]
        assert baseline.schedule.transfers == ttnn_flash_attention(shape, WH, q, k).schedule.transfers
    chained = next(b for b in swept if b.schedule.block_sizes == {"tile_m": 64, "tile_n": 64})
    assert chained.schedule.notes[1] == "production chunk sizes: q_chunk 64, k_chunk 64"
    assert chained.schedule.transfers["k"]["group"] == [8, 1]  # 8 Q chunks of 64 rows on 8 cores per head
    # chunk sizes must divide the sequence (TTNN's padding is not reproduced): at L = 192 the production
    # sizes that do not are replaced by the largest multiple of 32 below them that does (128 -> 96, 256 -> 192)
    assert user_chunks(192) == user_chunks(960) == (64, 96, 192) and user_chunks(4096) == (64, 128, 256)
    swept = tuned_flash_attention({"B": 1, "H": 2, "L": 192, "D": 64}, WH)
    assert {(b.schedule.block_sizes["tile_m"], b.schedule.block_sizes["tile_n"]) for b in swept} <= \
        {(q, k) for q in (64, 96, 192) for k in (64, 96, 192)}
    assert any(b.schedule.notes[1] == "chunk sizes: q_chunk 192, k_chunk 96" for b in swept)


def test_decode_hand_tuned_is_ttnns_default():
    shape = {"B": 16, "H": 32, "L": 4096, "D": 64}
    (tuned,) = candidates("tuned", "flash_decode", shape, WH)
    default = ttnn_flash_decode(shape, WH)
    assert (tuned.schedule.view, tuned.schedule.block_sizes) == (default.schedule.view, default.schedule.block_sizes)
    assert "tt_transformers runs decode with it" in tuned.schedule.notes[1]
    with pytest.raises(ValueError, match="unknown baseline"):
        candidates("best", "flash_decode", shape, WH)
