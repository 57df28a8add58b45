"""K-block extrapolation of a GEMM point (`loom.calibrate.gemm.k_block_plan`): a long K loop is simulated
as two shorter ones and extended linearly; the figures must match the full simulation."""

from __future__ import annotations

import pytest

from loom.arch import load_arch
from loom.baselines.ttnn_matmul import matmul_subblock
from loom.calibrate import gemm
from loom.sim.gemm_workload import GemmConfig


def _config(arch_name: str, M: int, K: int, N: int, grid: tuple[int, int], kw: int, block: tuple[int, int],
            dtype: str = "bfloat16") -> GemmConfig:
    pcm, pcn = M // 32 // grid[1], N // 32 // grid[0]
    return GemmConfig(M, K, N, grid, pcm, pcn, kw, block[0], block[1], matmul_subblock(*block, False), dtype,
                      dtype, "bfloat16", "HiFi2")


@pytest.mark.parametrize("arch_name, M, K, N, grid, kw, block, dtype", [
    ("blackhole_p150", 1280, 26624, 1664, (13, 10), 2, (4, 4), "bfloat16"),   # 416 K blocks, 8 banks
    ("wormhole_n150", 1024, 12288, 1024, (8, 8), 3, (4, 4), "bfp8_b"),         # 128 blocks, 12 banks, kw 3
    ("wormhole_n150", 512, 10240, 1024, (8, 4), 1, (2, 4), "bfloat16"),        # two output blocks per core
])
def test_extrapolated_figures_match_the_full_simulation(arch_name, M, K, N, grid, kw, block, dtype):
    arch = load_arch(arch_name)
    cfg = _config(arch_name, M, K, N, grid, kw, block, dtype)
    assert gemm.k_block_plan(arch, cfg) is not None
    full = gemm._config_figures(arch, cfg, False, False)
    extended = gemm.gemm_figures(arch_name, cfg, False, False)
    assert extended["extrapolated"] == 1.0
    for key in ("kernel_cycles", "trisc1_cycles"):
        assert extended[key] == pytest.approx(full[key], rel=0.005), key


def test_the_shorter_loops_keep_a_rows_banks_and_stay_short():
    for arch_name in ("wormhole_n150", "blackhole_p150"):
        arch = load_arch(arch_name)
        for kw in (1, 2, 3, 4, 6, 8, 16):
            for blocks in (25, 49, 100, 208, 416):
                cfg = _config(arch_name, 1024, blocks * kw * 32, 1024, (8, 8), kw, (4, 4))
                plan = gemm.k_block_plan(arch, cfg)
                if plan is None:
                    continue
                (n1, k1), (n2, k2), total = plan
                assert total == blocks and n1 < n2 and 2 * n2 <= blocks
                assert k1 == n1 * kw * 32 and k2 == n2 * kw * 32
                kt = blocks * kw
                assert (kt - k1 // 32) % arch.dram.banks == 0 and (kt - k2 // 32) % arch.dram.banks == 0


def test_a_short_k_loop_is_simulated_whole():
    arch = load_arch("wormhole_n150")
    cfg = _config("wormhole_n150", 1024, 24 * 32, 1024, (8, 8), 1, (4, 4))
    assert gemm.k_block_plan(arch, cfg) is None
    assert gemm.gemm_figures("wormhole_n150", cfg, False, False)["extrapolated"] == 0.0
