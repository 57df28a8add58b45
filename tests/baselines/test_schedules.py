"""TTNN's choices written as Loom schedules (loom.baselines.schedules): the padding TTNN's
uneven core splits need, the row-major placement of its attention cores, and a padded baseline
that runs and matches torch."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from loom.arch import load_arch
from loom.backend.placement import place_row_major, virtual_arch
from loom.backend.program import CB, CoreGroup, Multicast, Program, ProgramError, SemInc, Write
from loom.baselines.schedules import ttnn_causal_attention, ttnn_flash_attention, ttnn_flash_decode, ttnn_gemm
from loom.baselines.ttnn_gemm_kernels import matmul_partials_in_float32, matmul_partials_in_output_format
from loom.errors import LoomError
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run, tensor_shapes
from tests.conftest import EXAMPLES


def test_gemm_on_blackhole_is_padded_to_ttnns_per_core_blocks():
    # 2048 = 64 tiles: per_core_M = ceil(64 / 10) = 7 -> 10 rows of 7 = 70 tiles (2240);
    # per_core_N = ceil(64 / 13) = 5 -> 13 columns of 5 = 65 tiles (2080)
    baseline = ttnn_gemm({"M": 2048, "N": 2048, "K": 2048}, load_arch("blackhole_p150"))
    assert baseline.schedule.shape == {"M": 2240, "N": 2080, "K": 2048}
    assert baseline.schedule.view == [[1, 13], [10, 1]] and baseline.placed_on is None
    assert "padded M 2048 -> 2240, N 2048 -> 2080" in baseline.schedule.notes[-1]


def test_gemm_on_wormhole_needs_no_padding():
    baseline = ttnn_gemm({"M": 2048, "N": 2048, "K": 2048}, load_arch("wormhole_n150"))
    assert baseline.schedule.shape == {"M": 2048, "N": 2048, "K": 2048}
    assert baseline.schedule.view == [[1, 8], [8, 1]]


def test_one_dimensional_gemm_uses_ttnns_core_count_as_a_rectangle():
    # 16384 x 256 on Blackhole: 1-D multicast of B, per_core_M = ceil(512 / 130) = 4 -> 128 cores,
    # laid out as 13 x 10 = 130 (two cores compute padding): M padded to 130 * 4 tiles
    baseline = ttnn_gemm({"M": 16384, "N": 256, "K": 2048}, load_arch("blackhole_p150"))
    assert baseline.schedule.shape["M"] == 130 * 4 * 32
    assert baseline.schedule.transfers == {"y": {"mode": "rect", "group": [13, 10]}}


def test_attention_split_no_rectangle_holds_runs_row_major_on_a_virtual_grid():
    bh = load_arch("blackhole_p150")
    # B=1: TTNN's 1 x 32 heads x 4 Q parts = 128 cores; no rectangle of 13 x 10 holds that
    # (TTNN chains each head's 4 cores: Q parts along x, K and V forwarded down each chain)
    baseline = ttnn_flash_attention({"B": 1, "H": 32, "L": 15360, "D": 64}, bh)
    assert baseline.placed_on is bh and baseline.arch.grid.dims == [4, 32]
    assert baseline.schedule.arch == "blackhole_p150@4x32"
    assert baseline.schedule.transfers["k"] == {"mode": "forward_row", "group": [4, 1]}
    # B=4: one core per (batch, head), no chains: no rectangle holds 128 cores either
    unchained = ttnn_flash_attention({"B": 4, "H": 32, "L": 3840, "D": 64}, bh)
    assert unchained.arch.grid.dims == [128, 1] and unchained.schedule.transfers == {}
    decode = ttnn_flash_decode({"B": 16, "H": 32, "L": 4096, "D": 64}, bh)
    assert decode.arch.grid.dims == [16, 8]
    wormhole = ttnn_flash_decode({"B": 16, "H": 32, "L": 4096, "D": 64}, load_arch("wormhole_n150"))
    assert wormhole.placed_on is None


def test_a_chain_over_the_q_cores_that_get_chunks_is_kept_when_the_last_cores_idle():
    # one head, 256 Q chunks of 64 on 130 Q cores, 2 each: cores 128 and 129 get none, and TTNN's chain
    # runs over the 128 others (the published SDXL VAE row); K and V are forwarded along it, not read from
    # DRAM by every core
    baseline = ttnn_flash_attention({"B": 1, "H": 1, "L": 16384, "D": 512}, load_arch("blackhole_p150"),
                                    q_chunk=64, k_chunk=64)
    assert baseline.arch.grid.dims == [128, 1]
    assert baseline.schedule.transfers["k"] == {"mode": "forward_row", "group": [128, 1]}
    assert any("last 2 of 130 Q cores per head get no chunk" in n for n in baseline.schedule.notes)


def test_row_major_placement_counts_x_fastest_and_places_the_cores_a_core_names():
    bh = load_arch("blackhole_p150")
    virtual = virtual_arch(bh, (16, 8))
    program = Program(virtual.name, (), [CoreGroup(cores=((vx, vy),), cbs=(CB("b", "bfloat16"),))
                                         for vy in range(8) for vx in range(16)])
    placed = place_row_major(program, (16, 8), bh)
    where = {g.cores[0] for g in placed.groups}
    assert placed.arch == bh.name and len(where) == 128
    assert placed.groups[16].cores == ((3, 1),)  # virtual (0, 1) is core 16: x 16 mod 13, y 16 div 13
    assert max(y for _, y in where) == 9
    def sender(*instrs):
        return Program(virtual.name, (), [CoreGroup(cores=((0, 1),), cbs=(CB("b", "bfloat16"),), reader=instrs)])

    # virtual (1, 1) .. (2, 1) are cores 17, 18: (4, 1) .. (5, 1), a row segment of the real grid
    placed = place_row_major(sender(Multicast((1, 1), (2, 1), "b"), Write((1, 1), "b"), SemInc("s", core=(9, 1))),
                             (16, 8), bh)
    multicast, write, inc = placed.groups[0].reader
    named = [tuple(c.const for c in coord) for coord in (multicast.lo, multicast.hi, write.dst, inc.core)]
    assert named == [(4, 1), (5, 1), (4, 1), (12, 1)]
    # virtual (12, 0) .. (13, 0) are cores 12, 13: (12, 0) and (0, 1), no rectangle of the real grid
    with pytest.raises(ProgramError, match="does not land on a rectangle"):
        place_row_major(sender(Multicast((12, 0), (13, 0), "b")), (16, 8), bh)


def test_gemm_baseline_keeps_ttnns_block_with_bf16_partials_shared_with_the_output():
    # 16384^2 x 256 on Wormhole: TTNN's 2-D config gives a 16 x 16 tile out block (in0_block_w 1).
    # An fp32 accumulator plus a bf16 output does not fit L1 with it (the old baseline halved
    # tile_m to 256); TTNN's bf16 interm0, one buffer with the output, does: 655,360 B of CBs.
    wh = load_arch("wormhole_n150")
    shape = {"M": 16384, "N": 16384, "K": 256}
    baseline = ttnn_gemm(shape, wh)
    assert baseline.schedule.block_sizes == {"tile_m": 512, "tile_n": 512, "tile_k": 32}
    assert baseline.kernel is matmul_partials_in_output_format
    assert "partials in bfloat16 (TTNN's interm0, one buffer with the output): TTNN's CBs take 655,360 B" \
        in baseline.schedule.notes[1]
    source = load_kernel_file(EXAMPLES / "matmul.py")
    compiled = compile_kernel(baseline.kernel, source.example_args(shape, meta=True), wh, shape=shape,
                              schedule=baseline.schedule)
    assert compiled.schedule.block_sizes == baseline.schedule.block_sizes
    with pytest.raises(LoomError, match="L1 footprint"):  # the fp32-accumulator kernel does not fit it
        compile_kernel(matmul_partials_in_float32, source.example_args(shape, meta=True), wh, shape=shape,
                       schedule=replace(baseline.schedule, kernel="matmul_partials_in_float32"))


def test_padded_baseline_matches_torch_and_writes_only_the_real_output():
    # 416 = 13 tiles on Blackhole: per_core_M = ceil(13 / 10) = 2 -> 7 rows of cores, M padded to 448
    bh = load_arch("blackhole_p150")
    source = load_kernel_file(EXAMPLES / "matmul.py")
    shape = {"M": 416, "N": 416, "K": 64}
    baseline = ttnn_gemm(shape, bh)
    assert baseline.schedule.shape["M"] == 448
    torch.manual_seed(0)
    args = source.example_args(shape)
    real = compile_kernel(source.kernel, source.example_args(shape, meta=True), bh, shape=shape)
    padded = compile_kernel(baseline.kernel, source.example_args(baseline.schedule.shape, meta=True), bh,
                            shape=baseline.schedule.shape, schedule=baseline.schedule)
    result = run(padded, args, reference=source.reference, valid=tensor_shapes(real))
    assert result.check.ok, result.check
    (out,) = [t for t in result.program.tensors if t.kind == "output"]
    assert result.sim.dram_write_tiles_by_tensor[out.name] == 13 * 13


def test_row_major_baseline_runs_on_the_real_grid():
    # B = 16 sequences x 8 cores each = 128 cores: TTNN's decode split, compiled for a 16 x 8 virtual
    # grid and simulated on Blackhole's 13 x 10 cores
    from loom.bench.paper import measure

    row = measure("flash_decode", {"B": 16, "H": 32, "L": 256, "D": 64}, "blackhole_p150")
    assert row.ttnn_sim_cycles and row.speedup_vs_ttnn > 0
    assert "row-major on the 13x10 grid" in row.note


def test_causal_baseline_splits_heads_over_kv_groups_and_balances_q_chunks():
    # tt_transformers prefill on Blackhole: 32 / 8 heads, S 4096, Q256/K256: TTNN's 1 x 32 heads x 4 Q
    # parts, each core 4 Q chunks, balanced in pairs (4 even, 4 x 4 = 16 chunks): heads = 8 groups x 4
    bh = load_arch("blackhole_p150")
    shape = {"B": 1, "H": 32, "KV": 8, "L": 4096, "D": 128}
    baseline = ttnn_causal_attention(shape, bh, 256, 256)
    assert baseline.schedule.order == ["b", "h_group", "h_in_group", "tile_m"]
    assert baseline.schedule.block_sizes == {"tile_m": 256, "tile_n": 256}
    assert baseline.schedule.knobs == {"balance_tile_m": 1}
    cores = {axis: 1 for axis in baseline.schedule.order}
    for axis, levels in baseline.schedule.spatial.items():
        for _, _, size in levels:
            cores[axis] *= size
    assert cores == {"b": 1, "h_group": 8, "h_in_group": 4, "tile_m": 4}
    assert "balanced Q split on" in baseline.schedule.notes[0]
    # Qwen3-VL's Q128/K512: a key chunk four query chunks long, the same split
    wide = ttnn_causal_attention(shape, bh, 128, 512)
    assert wide.schedule.block_sizes == {"tile_m": 128, "tile_n": 512}
    with pytest.raises(LoomError, match="neither of k_chunk 64 and q_chunk 96 divides the other"):
        ttnn_causal_attention({**shape, "L": 384}, bh, 96, 64)


def test_causal_baseline_runs_and_matches_torch():
    wh = load_arch("wormhole_n150")
    source = load_kernel_file(EXAMPLES / "causal_attention.py")
    shape = {"B": 1, "H": 4, "KV": 2, "L": 256, "D": 64}
    baseline = ttnn_causal_attention(shape, wh, 64, 32)
    compiled = compile_kernel(source.kernel, source.example_args(shape, meta=True), baseline.arch, shape=shape,
                              schedule=baseline.schedule)
    result = run(compiled, source.example_args(shape), reference=source.reference)
    assert result.check.ok, result.check
