"""TTNN default program-config selection (loom.baselines) against hand-worked examples.

Every expected value below is derived by hand from shared/reference/tenstorrent.md §3 (matmul)
and §4 (SDPA), with the arithmetic in the comments. Architecture numbers used in the arithmetic:
Wormhole n150 grid 8x8 (x, y), Blackhole p150 grid 13x10; usable L1 L = 1,398,784 B on Wormhole,
1,472,512 B on Blackhole (every hand-worked Blackhole case below fits, or overflows, either figure);
tiles 32x32; tile bytes bf16 2048, fp32 4096, bfp8_b 1088, bfp4_b 576.

Matmul CB estimate (§3.1), with in0_bw = in0_block_w:
    size(m, n, k) = m·k·2·tileA + n·k·2·tileB + m·n·tileA + m·n·interm + n·bias,
    interm = 4096 with fp32 accumulation, else max(2048, out tile); fits when size < L.
For bf16 (tile 2048, interm 2048, no bias): size = 4096·(k·(m+n) + m·n).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from loom.arch import load_arch
from loom.baselines import (
    get_mcast_1d_config,
    matmul_default_config,
    sdpa_decode_config,
    sdpa_prefill_config,
)
from loom.baselines.ttnn import decode_k_chunk_size, matmul_subblock, multi_dim_per_core_factor
from loom.baselines.ttnn_matmul import CbModel, intermediate, is_narrow_shape, per_core_factor
from loom.baselines.ttnn_sdpa import kv_chains

WH = load_arch("wormhole_n150")
BH = load_arch("blackhole_p150")
L1 = 1_398_784
BH_L1 = 1_472_512


def _cb(tile: int = 2048, interm: int = 2048, bias: int = 0) -> CbModel:
    return CbModel(tile_a=tile, tile_b=tile, interm=interm, bias=bias, l1_bytes=L1)


def _has_note(cfg, *fragments: str) -> bool:
    return any(all(f in note for f in fragments) for note in cfg.notes)


# --------------------------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------------------------

def test_the_tests_use_the_arch_numbers_they_state():
    assert WH.l1.usable_bytes == L1 and BH.l1.usable_bytes == BH_L1
    assert tuple(WH.grid.dims) == (8, 8) and tuple(BH.grid.dims) == (13, 10)


def test_cb_estimate_formula():
    # bf16, m = n = 16, k = 2: 16·2·2·2048 + 16·2·2·2048 + 256·2048 + 256·2048
    #   = 131,072 + 131,072 + 524,288 + 524,288 = 1,310,720 (= 4096·(2·32 + 256))
    assert _cb().size(16, 16, 2) == 1_310_720
    # with a bf16 bias: + 16·2048 = 1,343,488
    assert _cb(bias=2048).size(16, 16, 2) == 1_343_488
    # m=8, n=4, k=3 with fp32 interm: 8·3·2·2048 + 4·3·2·2048 + 32·2048 + 32·4096
    #   = 98,304 + 49,152 + 65,536 + 131,072 = 344,064
    assert _cb(interm=4096).size(8, 4, 3) == 344_064


def test_per_core_factor_l1_fitting():
    # bf16: f = 16 gives 1,310,720 < 1,398,784 → 16.
    assert per_core_factor(_cb(), 2) == 16
    # bf16 inputs, fp32 accumulation (interm 4096): f = 16 gives
    #   131,072 + 131,072 + 524,288 + 256·4096 = 1,835,008 >= L; f = 8 gives
    #   8·2·2·2048·2 + 64·2048 + 64·4096 = 131,072 + 131,072 + 262,144 = 524,288 < L → 8.
    assert per_core_factor(_cb(interm=4096), 2) == 8
    # fp32 inputs (tile 4096, interm 4096): f = 16 gives 2·(16·2·2·4096) + 2·(256·4096)
    #   = 524,288 + 2,097,152 = 2,621,440 >= L; f = 8: 262,144 + 524,288 = 786,432 < L → 8.
    assert per_core_factor(_cb(tile=4096, interm=4096), 2) == 8
    # 2x2 at k = 2 needs 4096·(2·4 + 4) = 49,152 B. Fitting is strict (size < L1): an L1 of
    # exactly 49,152 B rejects 2x2 → 1; one byte more accepts it → 2.
    tiny = CbModel(tile_a=2048, tile_b=2048, interm=2048, bias=0, l1_bytes=49_152)
    assert per_core_factor(tiny, 2) == 1
    small = CbModel(tile_a=2048, tile_b=2048, interm=2048, bias=0, l1_bytes=49_153)
    assert per_core_factor(small, 2) == 2


def test_multi_dim_factor_keeps_a_fitting_block():
    # 4x4 with k = 4: 4096·(4·8 + 16) = 196,608 < L → unchanged.
    assert multi_dim_per_core_factor(_cb(), 4, 4, 4, adjust_in0_block_w=True) == (4, 4, 4)


def test_multi_dim_factor_shrinks_to_the_most_square_fitting_pair():
    # 16x16, k = 16: 4096·(16·32 + 256) = 3,145,728 >= L.
    # Divisor pairs of (16, 16), most square per product: 256→(16,16), 128→(8,16) (ties with
    # (16,8) go to the later pair), 64→(8,8), ...
    #   (8,16), k=16: 4096·(16·24 + 128) = 2,097,152 >= L
    #   (8,8),  k=16: 4096·(16·16 + 64) = 1,310,720 < L → (8, 8, 16).
    assert multi_dim_per_core_factor(_cb(), 16, 16, 16, adjust_in0_block_w=True) == (8, 8, 16)


def test_multi_dim_factor_shrinks_k_only_when_allowed():
    # 16x16 with k = 192: even (1,1) needs 4096·(192·2 + 1) = 1,576,960 >= L.
    # k scans down through divisors of 192 only: 191..97 are skipped, next is 96. At k = 96, by
    # product from largest: ... (2,4) = 4096·(96·6 + 8) = 2,392,064; (2,2) = 4096·(96·4 + 4)
    # = 1,589,248; both >= L; product 2: (1,2) then (2,1), equal ratio, the later (2,1) kept:
    # 4096·(96·3 + 2) = 1,187,840 < L → (2, 1, 96).
    assert multi_dim_per_core_factor(_cb(), 16, 16, 192, adjust_in0_block_w=True) == (2, 1, 96)
    # With k fixed at 192 nothing fits → the (1, 1, 1) fallback.
    assert multi_dim_per_core_factor(_cb(), 16, 16, 192, adjust_in0_block_w=False) == (1, 1, 1)


@pytest.mark.parametrize(("block", "fp32", "expected"), [
    ((4, 4), False, (4, 2)),   # (4,2) is first in the list and divides 4x4
    ((4, 4), True, (2, 2)),    # h·w > 4 skipped: (2,2) is the first remaining pair dividing 4x4
    ((1, 32), False, (1, 8)),  # (4,2),(2,4),(8,1) fail on h | 1; (1,8) divides
    ((1, 32), True, (1, 4)),   # with fp32: (2,2),(4,1) fail on h; (1,4) divides
    ((3, 5), False, (1, 5)),   # (3,2): 5 % 2; (6,1),(1,6),(5,1) fail; (1,5) divides
    ((3, 5), True, (3, 1)),    # with fp32 the h·w <= 4 pairs: (2,2),(4,1),(1,4) fail; (3,1) divides
    ((7, 7), True, (1, 1)),    # no pair with h·w <= 4 other than (1,1) divides 7x7
    ((16, 2), False, (4, 2)),
])
def test_subblock_choice(block, fp32, expected):
    assert matmul_subblock(*block, fp32) == expected


def test_narrow_ratio_is_an_integer_division():
    # 2304/256 = 9 > 8 → narrow; 2176/256 = 8.5, which uint32 division makes 8 → not narrow.
    assert is_narrow_shape(2304, 256, all_dram=False, tile=32)[0] is True
    assert is_narrow_shape(2176, 256, all_dram=False, tile=32)[0] is False
    # In DRAM a dimension of one tile (32) is narrow even at ratio 256/32 = 8.
    assert is_narrow_shape(32, 256, all_dram=True, tile=32)[0] is True
    assert is_narrow_shape(32, 256, all_dram=False, tile=32)[0] is False


# --------------------------------------------------------------------------------------------
# matmul_default_config on Wormhole 8x8
# --------------------------------------------------------------------------------------------

def test_square_1024_is_2d():
    # Mt = Kt = Nt = 1024/32 = 32. Ratio 1, min 1024 > 32 → not narrow.
    # Per-core factor 16 fits (1,310,720 < L) → blocks ceil(32/16) = 2 x 2 → core range 2x2,
    # neither y = 1 nor x = 1 → 2-D on the full 8x8 grid (all DRAM-interleaved).
    # in0_block_w = Kt/grid_x = 32/8 = 4; per_core_M = ceil(32/8) = 4, per_core_N = ceil(32/8) = 4.
    # 4x4, k = 4 needs 4096·(4·8 + 16) = 196,608 < L → no shrinking.
    # Subblock of 4x4: (4,2). num_blocks_k = 32/4 = 8. bf16 → HiFi2, fp32 acc off.
    c = matmul_default_config(1024, 1024, 1024, arch=WH)
    assert c.kind == "mcast_2d"
    assert c.grid == (8, 8)
    assert (c.per_core_M, c.per_core_N, c.in0_block_w) == (4, 4, 4)
    assert (c.out_block_h, c.out_block_w) == (4, 4)
    assert (c.out_subblock_h, c.out_subblock_w) == (4, 2)
    assert c.num_blocks_k == 8
    assert c.fidelity == "HiFi2" and c.fp32_dest_acc is False
    assert _has_note(c, "2-D")


def test_square_4096_is_2d_with_shrunk_blocks():
    # Mt = Kt = Nt = 128. Factor 16 → blocks 8 x 8 → core range 8x8 fits → 2-D.
    # in0_block_w = 128/8 = 16; per_core_M = per_core_N = 128/8 = 16.
    # 16x16, k=16 needs 3,145,728 >= L → multi-dim factor gives (8, 8, 16) (see
    # test_multi_dim_factor_shrinks_to_the_most_square_fitting_pair). Subblock of 8x8: (4,2).
    # num_blocks_k = 128/16 = 8.
    c = matmul_default_config(4096, 4096, 4096, arch=WH)
    assert c.kind == "mcast_2d" and c.grid == (8, 8)
    assert (c.per_core_M, c.per_core_N, c.in0_block_w) == (16, 16, 16)
    assert (c.out_block_h, c.out_block_w) == (8, 8)
    assert (c.out_subblock_h, c.out_subblock_w) == (4, 2)
    assert c.num_blocks_k == 8
    assert _has_note(c, "shrinks to out_block 8x8")


def test_tall_shape_is_1d_mcast_of_b():
    # M=16384, K=1024, N=256: ratio 16384/256 = 64 > 8 → narrow; N < M → tall → 1-D, mcast_in0=false.
    # get_mcast_1d_config: per_core_M = ceil(ceil(16384/64)/32) = ceil(256/32) = 8; per_core_N = Nt = 8.
    # Kt = 32 even → in0_block_w = 2. 8x8, k=2: 4096·(2·16 + 64) = 393,216 < L → out_block 8x8.
    # Subblock (4,2). num_blocks_k = 32/2 = 16.
    c = matmul_default_config(16384, 1024, 256, arch=WH)
    assert c.kind == "mcast_1d_in1"
    assert c.grid == (8, 8)
    assert (c.per_core_M, c.per_core_N, c.in0_block_w) == (8, 8, 2)
    assert (c.out_block_h, c.out_block_w) == (8, 8)
    assert (c.out_subblock_h, c.out_subblock_w) == (4, 2)
    assert c.num_blocks_k == 16
    assert _has_note(c, "narrow", "64 > 8", "tall")
    assert _has_note(c, "1-D mcast of B")


def test_wide_shape_is_1d_mcast_of_a():
    # M=256, K=1024, N=16384: ratio 64 > 8, N > M → wide → 1-D, mcast_in0=true.
    # per_core_M = Mt = 8; per_core_N = ceil(ceil(16384/64)/32) = 8; in0_block_w = 2.
    c = matmul_default_config(256, 1024, 16384, arch=WH)
    assert c.kind == "mcast_1d_in0"
    assert (c.per_core_M, c.per_core_N, c.in0_block_w) == (8, 8, 2)
    assert _has_note(c, "wide")


def test_single_row_core_range_is_1d_mcast_of_a():
    # M=512, K=1024, N=4096: ratio 4096/512 = 8, not > 8; min 512 > 32 → not narrow.
    # Mt = 16, Nt = 128; factor 16 → blocks ceil(16/16) = 1 row x ceil(128/16) = 8 columns →
    # core range 8x1: y = 1 → 1-D mcast_in0. per_core_M = 16, per_core_N = ceil(ceil(4096/64)/32) = 2.
    # 16x2 block, subblock (4,2) divides it.
    c = matmul_default_config(512, 1024, 4096, arch=WH)
    assert c.kind == "mcast_1d_in0"
    assert (c.per_core_M, c.per_core_N) == (16, 2)
    assert (c.out_subblock_h, c.out_subblock_w) == (4, 2)
    assert _has_note(c, "one row")


def test_one_tile_dimension_is_narrow_in_dram_only():
    # M=32, K=1024, N=256: ratio 8 is not > 8, but all-DRAM and min(M,N) = 32 <= 32 → narrow, wide.
    # → 1-D mcast of A: per_core_M = Mt = 1, per_core_N = ceil(ceil(256/64)/32) = ceil(4/32) = 1.
    c = matmul_default_config(32, 1024, 256, arch=WH)
    assert c.kind == "mcast_1d_in0"
    assert (c.per_core_M, c.per_core_N) == (1, 1)
    # L1-interleaved: not narrow. Mt = 1, Nt = 8 → blocks 1 x 1 → core range 0 (single block);
    # not all-DRAM → no 2-D rule → fallback MatmulMultiCoreProgramConfig.
    c1 = matmul_default_config(32, 1024, 256, arch=WH, buffer="l1")
    assert c1.kind == "no_reuse"
    assert c1.num_blocks_k == 32
    assert _has_note(c1, "fallback")


def test_odd_kt_gives_in0_block_w_1_in_2d():
    # K = 1056 → Kt = 33 (odd); M = N = 1024 → blocks 2x2 (> 1 block) → in0_block_w = 1; the 2-D
    # rule then gives Kt/grid_x only if 33 % 8 == 0, which fails → in0_block_w = 1; num_blocks_k = 33.
    c = matmul_default_config(1024, 1056, 1024, arch=WH)
    assert c.kind == "mcast_2d"
    assert c.in0_block_w == 1
    assert c.num_blocks_k == 33
    assert _has_note(c, "odd Kt = 33")


def test_odd_kt_gives_in0_block_w_1_in_1d():
    # K = 96 → Kt = 3 (odd); tall 16384 x 256 → 1-D mcast of B; get_mcast_1d_config: Kt odd → 1.
    c = matmul_default_config(16384, 96, 256, arch=WH)
    assert c.kind == "mcast_1d_in1"
    assert c.in0_block_w == 1 and c.num_blocks_k == 3


def test_l1_fitting_shrinks_per_core_factor_and_fp32_subblock():
    # float32 4096^3: tile 4096, output float32 → fp32 accumulation on, interm 4096, HiFi4 (arch).
    # Per-core factor: 16 needs 2,621,440 >= L; 8 needs 786,432 < L → 8.
    # Blocks ceil(128/8) = 16 x 16 exceed 8x8 → core range 0; not narrow → 2-D (all DRAM).
    # in0_block_w = 16, per_core 16x16. Multi-dim factor at k = 16, size = 8192·(16·(m+n) + m·n):
    #   (16,16): 6,291,456; (8,16): 4,194,304; (8,8): 2,621,440; (4,8): 1,835,008; all >= L.
    #   (4,4): 8192·(128 + 16) = 1,179,648 < L → (4, 4, 16).
    # Subblock of 4x4 with fp32: skip h·w > 4 → (2,2).
    c = matmul_default_config(4096, 4096, 4096, dtype="float32", arch=WH)
    assert c.kind == "mcast_2d"
    assert c.fp32_dest_acc is True
    assert c.fidelity == WH.matrix_engine.default_fidelity["float32"]
    assert (c.per_core_M, c.per_core_N, c.in0_block_w) == (16, 16, 16)
    assert (c.out_block_h, c.out_block_w) == (4, 4)
    assert (c.out_subblock_h, c.out_subblock_w) == (2, 2)
    assert _has_note(c, "per-core factor shrunk to 8")


def test_fp32_accumulation_changes_the_subblock_for_the_same_block():
    # 1024^3 bf16 gives a 4x4 block (test_square_1024_is_2d). Forcing fp32 accumulation makes
    # interm 4096: 4x4, k=4 needs 4·4·2·2048·2 + 16·2048 + 16·4096 = 131,072 + 32,768 + 65,536
    #   = 229,376 < L → still 4x4; subblock now (2,2) instead of (4,2).
    c = matmul_default_config(1024, 1024, 1024, arch=WH, fp32_dest_acc=True)
    assert (c.out_block_h, c.out_block_w) == (4, 4)
    assert (c.out_subblock_h, c.out_subblock_w) == (2, 2)
    assert c.fidelity == "HiFi2"


def test_bfp8_is_lofi_and_shrinks_less():
    # bfp8_b: tile 1088, interm max(2048, 1088) = 2048. 2-D with per_core 16x16, k = 16.
    # size(m, n, 16) = 1088·32·(m+n) + 1088·mn + 2048·mn = 34,816·(m+n) + 3,136·mn.
    #   (16,16): 1,114,112 + 802,816 = 1,916,928 >= L
    #   128 → (8,16): 835,584 + 401,408 = 1,236,992 < L → (8, 16, 16). Subblock of 8x16: (4,2).
    c = matmul_default_config(4096, 4096, 4096, dtype="bfp8_b", arch=WH)
    assert c.fidelity == "LoFi"
    assert (c.out_block_h, c.out_block_w, c.in0_block_w) == (8, 16, 16)


def test_batched_b_routes_to_1d_mcast_of_b():
    # batch(A) = 1, batch(B) = 4 → get_mcast_1d_config(mcast_in0=false) regardless of shape.
    # per_core_M = ceil(ceil(1024/64)/32) = ceil(16/32) = 1; per_core_N = Nt = 32.
    # 1x32, k=2: 4096·(2·33 + 32) = 401,408 < L → block 1x32.
    # Subblock of 1x32: (1,8).
    c = matmul_default_config(1024, 1024, 1024, batch_b=4, arch=WH)
    assert c.kind == "mcast_1d_in1"
    assert (c.per_core_M, c.per_core_N) == (1, 32)
    assert (c.out_block_h, c.out_block_w) == (1, 32)
    assert (c.out_subblock_h, c.out_subblock_w) == (1, 8)
    assert _has_note(c, "batched B")


def test_l1_interleaved_square_uses_the_fixed_2d_subblock():
    # L1-interleaved 1024^3: factor 16 → 2x2 blocks <= 64 cores and Kt = 32 even → core range 2x2
    # → 2-D with per_core = 16, in0_block_w = 2; subblock (4,2) → h = 1 since per_core_N = 16 != 2.
    c = matmul_default_config(1024, 1024, 1024, arch=WH, buffer="l1")
    assert c.kind == "mcast_2d"
    assert (c.per_core_M, c.per_core_N, c.in0_block_w) == (16, 16, 2)
    assert (c.out_subblock_h, c.out_subblock_w) == (1, 2)


def test_get_mcast_1d_config_directly():
    # mcast_in0=true on 1024x1024x4096: per_core_M = 32, per_core_N = ceil(ceil(4096/64)/32) = 2.
    # 32x2, k=2: 4096·(2·34 + 64) = 540,672 < L → block 32x2, subblock (4,2).
    c = get_mcast_1d_config(1024, 1024, 4096, mcast_in0=True, arch=WH)
    assert c.kind == "mcast_1d_in0"
    assert (c.per_core_M, c.per_core_N, c.out_block_h, c.out_block_w) == (32, 2, 32, 2)
    # mcast_in0=false: per_core_M = ceil(ceil(1024/64)/32) = 1, per_core_N = 128.
    # 1x128, k=2: 4096·(2·129 + 128) = 1,581,056 >= L → shrink with k fixed at 2: the pairs are
    # (1, n) for n | 128; (1, n) fits when 4096·(2·(1+n) + n) < L ⟺ 3n + 2 < 341.5 ⟺ n <= 113;
    # the largest divisor of 128 that is <= 113 is 64 → (1, 64).
    c = get_mcast_1d_config(1024, 1024, 4096, mcast_in0=False, arch=WH)
    assert c.kind == "mcast_1d_in1"
    assert (c.per_core_M, c.per_core_N) == (1, 128)
    assert (c.out_block_h, c.out_block_w, c.in0_block_w) == (1, 64, 2)


def test_blackhole_13x10_for_5120x6656x6656():
    # Mt = 160, Kt = Nt = 208. Ratio 1 → not narrow. Factor 16 → blocks ceil(160/16) = 10 rows x
    # ceil(208/16) = 13 columns → core range 13x10 fits 13x10 → 2-D on the full grid.
    # in0_block_w = 208/13 = 16; per_core_M = 160/10 = 16, per_core_N = 208/13 = 16.
    # 16x16, k=16 does not fit → (8, 8, 16) as on Wormhole. Subblock (4,2). num_blocks_k = 13.
    c = matmul_default_config(5120, 6656, 6656, arch=BH)
    assert c.kind == "mcast_2d"
    assert c.grid == (13, 10)
    assert (c.per_core_M, c.per_core_N, c.in0_block_w) == (16, 16, 16)
    assert (c.out_block_h, c.out_block_w) == (8, 8)
    assert (c.out_subblock_h, c.out_subblock_w) == (4, 2)
    assert c.num_blocks_k == 13


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="2-D worker grid"):
        matmul_default_config(1024, 1024, 1024, arch="ring32")
    with pytest.raises(ValueError, match="dtype 'float8'"):
        matmul_default_config(1024, 1024, 1024, arch=WH, dtype="float8")
    with pytest.raises(ValueError, match="unknown dtype"):
        matmul_default_config(1024, 1024, 1024, arch=WH, out_dtype="float8")
    with pytest.raises(ValueError, match="M >= 1"):
        matmul_default_config(0, 1024, 1024, arch=WH)


def test_arch_can_be_given_by_name():
    assert matmul_default_config(1024, 1024, 1024, arch="wormhole_n150") == \
        matmul_default_config(1024, 1024, 1024, arch=WH)


# --------------------------------------------------------------------------------------------
# SDPA prefill
# --------------------------------------------------------------------------------------------

def test_sdpa_prefill_default_64_cores():
    # B=1, NQH=32, S=16384, DH=128, no program config → q_chunk = k_chunk = 32, grid 8x8 = 64.
    # q_num_chunks = 16384/32 = 512; Sq_chunk_t = Sk_chunk_t = 1; DHt = 4.
    # batch_pf = min(1, 64) = 1; nh_pf = min(64/1, 32) = 32; q_pf = min(64/32, 512) = 2.
    # Per core: 1 batch, 1 head, q_per_core = ceil(512/2) = 256 chunks; 1·32·2 = 64 active cores.
    # Causal, 256·2 = 512 and 256 even → balanced.
    # CBs: Q 1·4·2 = 8 (q_per_core > 1), K 2·1·4 = 8, V 8, mask 2·1·1 = 2, QK 1, out 1·4 = 4.
    # Bytes: (8+8+8+1+4)·2048 + 2·576 = 59,392 + 1,152 = 60,544.
    # QK subblock of 1x1: (1,1); PV subblock of 1x4 (dst 8): (1,4).
    c = sdpa_prefill_config(1, 32, 32, 16384, 16384, 128, arch=WH)
    assert (c.q_chunk_size, c.k_chunk_size) == (32, 32)
    assert c.q_num_chunks == 512 and c.k_num_chunks == 512
    assert (c.batch_parallel, c.nh_parallel, c.q_parallel) == (1, 32, 2)
    assert (c.batch_per_core, c.nh_per_core, c.q_per_core) == (1, 1, 256)
    assert c.num_active_cores == 64
    assert c.balanced_q_parallel is True
    assert dict(c.cb_tiles) == {"q": 8, "k": 8, "v": 8, "mask": 2, "qk_scores": 1, "out": 4}
    assert c.cb_bytes == 60_544
    assert c.qk_in0_block_w == 4 and c.pv_in0_block_w == 1
    assert c.qk_subblock == (1, 1) and c.pv_subblock == (1, 4)
    assert c.fidelity == "HiFi2" and c.fp32_dest_acc is False


def test_sdpa_prefill_model_chunks_and_gqa():
    # q_chunk = k_chunk = 256 → Sq_chunk_t = Sk_chunk_t = 8; q_num_chunks = 64; q_pf = min(2, 64) = 2,
    # q_per_core = 32. NKH = 8 does not change the split.
    # QK subblock of 8x8 within 8 tiles: first of (2,4),(4,2),... → (2,4); PV of 8x4 → (2,4).
    # CBs: Q 8·4·2 = 64, K 2·8·4 = 64, V 64, mask 2·8·8 = 128, QK 64, out 8·4 = 32.
    c = sdpa_prefill_config(1, 32, 8, 16384, 16384, 128, arch=WH, q_chunk=256, k_chunk=256)
    assert (c.Sq_chunk_t, c.Sk_chunk_t, c.q_num_chunks) == (8, 8, 64)
    assert (c.nh_parallel, c.q_parallel, c.q_per_core) == (32, 2, 32)
    assert c.qk_subblock == (2, 4) and c.pv_subblock == (2, 4)
    assert dict(c.cb_tiles) == {"q": 64, "k": 64, "v": 64, "mask": 128, "qk_scores": 64, "out": 32}


def test_sdpa_prefill_padding_batches_and_non_causal():
    # B=8, NQH=16, Sq=Sk=1000 → padded to 1024 (32 chunks of 32). batch_pf = 8; nh_pf =
    # min(64/8, 16) = 8; q_pf = min(64/64, 32) = 1 → nh_per_core = 2, q_per_core = 32.
    # Non-causal but padded (1024 != 1000) → mask CB kept; not balanced (non-causal).
    c = sdpa_prefill_config(8, 16, 16, 1000, 1000, 64, arch=WH, causal=False)
    assert c.padded_Sq == 1024 and c.q_num_chunks == 32
    assert (c.batch_parallel, c.nh_parallel, c.q_parallel) == (8, 8, 1)
    assert (c.nh_per_core, c.q_per_core) == (2, 32)
    assert c.balanced_q_parallel is False
    assert dict(c.cb_tiles)["mask"] == 2
    # Non-causal and unpadded: no mask CB.
    c2 = sdpa_prefill_config(1, 32, 32, 1024, 1024, 128, arch=WH, causal=False)
    assert "mask" not in dict(c2.cb_tiles)


def test_sdpa_prefill_unbalanced_and_single_q_chunk():
    # S = 96 → 3 chunks; q_pf = min(64/32, 3) = 2; q_per_core = ceil(3/2) = 2;
    # 2·2 = 4 != 3 → not balanced.
    c = sdpa_prefill_config(1, 32, 32, 96, 96, 128, arch=WH)
    assert (c.q_parallel, c.q_per_core) == (2, 2)
    assert c.balanced_q_parallel is False
    # S = 32 → 1 chunk per head: q_per_core = 1 → Q single-buffered: 1·4 = 4 tiles.
    c1 = sdpa_prefill_config(1, 32, 32, 32, 32, 128, arch=WH)
    assert c1.q_per_core == 1 and dict(c1.cb_tiles)["q"] == 4


def test_sdpa_prefill_bad_inputs():
    with pytest.raises(ValueError, match="q_chunk"):
        sdpa_prefill_config(1, 32, 32, 1024, 1024, 128, arch=WH, q_chunk=48)
    with pytest.raises(ValueError, match="KV heads"):
        sdpa_prefill_config(1, 32, 5, 1024, 1024, 128, arch=WH)


# --------------------------------------------------------------------------------------------
# SDPA decode
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("S", "chunk"), [
    (4096, 512),   # 4096 = 2^12 → capped at 512
    (96, 32),      # 96 = 32·3
    (384, 128),    # 384 = 128·3
    (3072, 512),   # 3072 = 1024·3 → capped
])
def test_decode_k_chunk_size(S, chunk):
    assert decode_k_chunk_size(S) == chunk


def test_decode_k_chunk_size_rejects_non_multiple_of_32():
    # 1000 = 8·125 → 8, not a multiple of 32 → TTNN fails.
    with pytest.raises(ValueError, match="multiple of 32"):
        decode_k_chunk_size(1000)


def test_sdpa_decode_b16_mha():
    # B=16, NQH=NKH=32, S=4096, 64 cores, no program config → max_per_head = 64.
    # k_chunk = 512 → 8 chunks of 16 tiles.
    # cores_per_batch = min(64, 64·16·32)/16 = 4; cores_per_head = max(1, 4/32 = 0) = 1;
    # heads_per_core = max(1, ceil(32/4)) = 8; rounds = 0 (one core per head).
    # active = 1·32·16/8 = 64; reducers = 32·16/8 = 64.
    c = sdpa_decode_config(16, 32, 32, 4096, 128, arch=WH)
    assert c.k_chunk_size == 512 and c.Sk_chunk_t == 16 and c.num_k_chunks == 8
    assert (c.cores_per_batch, c.cores_per_head, c.heads_per_core) == (4, 1, 8)
    assert c.tree_reduction_rounds == 0
    assert (c.num_active_cores, c.num_reducer_cores) == (64, 64)
    assert c.k_chunks_per_core == 8


def test_sdpa_decode_b16_gqa():
    # NKH = 8: cores_per_batch = 64/16 = 4; cores_per_head = max(1, 4/8 = 0) = 1;
    # heads_per_core = ceil(8/4) = 2; rounds 0; active = 1·8·16/2 = 64; 32/8 = 4 Q heads per KV head.
    c = sdpa_decode_config(16, 32, 8, 4096, 128, arch=WH)
    assert c.k_chunk_size == 512
    assert (c.cores_per_batch, c.cores_per_head, c.heads_per_core) == (4, 1, 2)
    assert c.tree_reduction_rounds == 0
    assert c.num_active_cores == 64
    assert c.q_heads_per_kv_head == 4 and c.padded_q_heads == 32


def test_sdpa_decode_splits_heads_over_cores_with_tree_reduction():
    # B=1, NKH=8: cores_per_batch = min(64, 64·1·8)/1 = 64; cores_per_head = 64/8 = 8;
    # heads_per_core = 1; rounds = ceil(log2 8) = 3; 8 chunks over 8 cores → 1 each; 8 reducers.
    c = sdpa_decode_config(1, 32, 8, 4096, 128, arch=WH)
    assert (c.cores_per_batch, c.cores_per_head, c.heads_per_core) == (64, 8, 1)
    assert c.tree_reduction_rounds == 3
    assert c.num_reducer_cores == 8 and c.k_chunks_per_core == 1
    # B=2, NKH=8, S=3072: cores_per_batch = 32, cores_per_head = 4, rounds = 2;
    # 3072/512 = 6 chunks over 4 cores → at most ceil(6/4) = 2 per core.
    c2 = sdpa_decode_config(2, 32, 8, 3072, 128, arch=WH)
    assert (c2.cores_per_head, c2.tree_reduction_rounds, c2.k_chunks_per_core) == (4, 2, 2)
    # cores_per_head = 5 (not a power of 2) → ceil(log2 5) = 3: B=1, NKH=12 on 64 cores:
    # cores_per_batch = 64, cores_per_head = 64/12 = 5.
    c3 = sdpa_decode_config(1, 12, 12, 4096, 128, arch=WH)
    assert (c3.cores_per_head, c3.tree_reduction_rounds) == (5, 3)


def test_sdpa_decode_max_cores_per_head_rule():
    # B=1, NKH=1. No program config: max_per_head = all 64 → cores_per_head = 64, rounds = 6.
    c = sdpa_decode_config(1, 8, 1, 4096, 128, arch=WH)
    assert (c.cores_per_head, c.tree_reduction_rounds, c.num_active_cores) == (64, 6, 64)
    # Program config with max_cores_per_head_batch = 16: min(64, 16·1·1) = 16 → rounds = 4.
    c16 = sdpa_decode_config(1, 8, 1, 4096, 128, arch=WH, max_cores_per_head_batch=16)
    assert (c16.cores_per_head, c16.tree_reduction_rounds, c16.num_active_cores) == (16, 4, 16)


def test_sdpa_decode_needs_a_core_per_batch():
    with pytest.raises(ValueError, match="cores >= batch"):
        sdpa_decode_config(65, 32, 8, 4096, 128, arch=WH)


def test_notes_explain_the_decisions():
    c = sdpa_decode_config(1, 32, 8, 4096, 128, arch=WH)
    assert any("ceil(log2(8)) = 3" in n for n in c.notes)
    p = sdpa_prefill_config(1, 32, 32, 16384, 16384, 128, arch=WH)
    assert any("BALANCED_Q_PARALLEL on" in n for n in p.notes)


def test_intermediate_is_bf16_and_shared_unless_fp32_accumulation():
    # tt-metal's 2-D factory: interm0 = Float32 with fp32 accumulation, else Float16_b (packer L1
    # accumulation, on by default for a bf16 output); one buffer with the output when formats match
    wh = load_arch("wormhole_n150")
    tile = wh.dtypes.tile_bytes
    cfg = matmul_default_config(4096, 4096, 4096, arch=wh)
    bf16 = intermediate(cfg, wh)
    assert (bf16.dtype, bf16.shared_with_output) == ("bfloat16", True)
    inputs = (cfg.out_block_h + cfg.out_block_w) * cfg.in0_block_w * 2 * tile["bfloat16"]
    assert bf16.cb_bytes == inputs + cfg.out_block_h * cfg.out_block_w * tile["bfloat16"]
    fp32 = intermediate(replace(cfg, fp32_dest_acc=True), wh)
    assert (fp32.dtype, fp32.shared_with_output) == ("float32", False)
    assert fp32.cb_bytes == bf16.cb_bytes + cfg.out_block_h * cfg.out_block_w * tile["float32"]
    # without packer L1 accumulation interm0 takes the output's format: float32 output, float32 partials
    assert intermediate(cfg, wh, out_dtype="float32", packer_l1_acc=False).dtype == "float32"


@pytest.mark.parametrize("arch, B, H, L, causal, chains, cores, multicast", [
    # Wormhole 8x8: B=1 -> 32 heads x 2 Q parts; each head's pair sits in one row -> multicast
    ("wormhole_n150", 1, 32, 16384, False, 32, 2, True),
    ("wormhole_n150", 1, 32, 64, False, 32, 2, True),  # one Q chunk per core still chains
    ("wormhole_n150", 1, 32, 16384, True, 0, 0, False),  # causal: no chains
    ("wormhole_n150", 2, 32, 8192, False, 0, 0, False),  # 64 (batch, head)s on 64 cores: one core each
    ("wormhole_n150", 1, 4, 512, False, 4, 16, False),  # 16 cores a head span two rows -> forwarded
    ("wormhole_n150", 1, 8, 384, False, 8, 6, True),  # 12 chunks, 2 per core on 6 of 8 cores, one row
    ("wormhole_n150", 1, 8, 352, False, 8, 6, False),  # 11 chunks: 2,2,2,2,2,1 unequal -> forwarded
    # Blackhole 13x10: 4 (B=1) or 2 (B=2) cores a head, row-major over 13 columns: some chains
    # straddle a row, so none multicasts (all or nothing)
    ("blackhole_p150", 1, 32, 15360, False, 32, 4, False),
    ("blackhole_p150", 2, 32, 7680, False, 64, 2, False),
    ("blackhole_p150", 4, 32, 3840, False, 0, 0, False),
    ("blackhole_p150", 20, 32, 768, False, 0, 0, False),
])
def test_kv_chains_where_ttnn_builds_them(arch, B, H, L, causal, chains, cores, multicast):
    cfg = sdpa_prefill_config(B, H, H, L, L, 64, arch=arch, causal=causal)
    got = kv_chains(cfg, B, H, causal=causal)
    assert len(got.chains) == chains and got.multicast == multicast, got.why
    assert all(len(c) == cores for c in got.chains)
    if chains:  # a chain is its head's consecutive cores
        assert all(c == tuple(range(c[0], c[0] + cores)) for c in got.chains)


def test_kv_chains_refuse_multicast_for_the_reason_ttnn_does():
    cfg = sdpa_prefill_config(1, 8, 8, 352, 352, 64, arch="wormhole_n150", causal=False)
    assert "unequal Q-chunk counts" in kv_chains(cfg, 1, 8, causal=False).why
    cfg = sdpa_prefill_config(1, 32, 32, 15360, 15360, 64, arch="blackhole_p150", causal=False)
    assert "(batch, head) (0, 3) spans two rows" in kv_chains(cfg, 1, 32, causal=False).why
    assert "non-chunked" in kv_chains(cfg, 1, 32, causal=False, chunked=True).why
