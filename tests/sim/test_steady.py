"""Steady-state extrapolation stays within 2 % of full simulation and says when it was used."""

from __future__ import annotations

import pytest

from loom.arch import load_arch
from loom.sim import simulate
from loom.sim.gemm_workload import gemm_grid_config, gemm_program
from loom.sim.steady import plan, spine

CASES = [
    ("wormhole_n150", 2048, 1024, 2048, (8, 8), 4, (1, 2), "bfloat16"),
    ("wormhole_n150", 2048, 2048, 2048, (8, 8), 8, (1, 2), "bfp8_b"),
    ("blackhole_p150", 1024, 1024, 1024, (4, 4), 4, (1, 2), "bfloat16"),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}x{c[2]}x{c[3]}-{c[7]}" for c in CASES])
def test_extrapolation_within_two_percent(case: tuple) -> None:
    name, M, K, N, grid, kw, ob, dtype = case
    arch = load_arch(name)
    prog = gemm_program(arch, gemm_grid_config(arch, M, K, N, grid, kw, ob, dtype))
    full = simulate(prog, arch, extrapolate=False)
    fast = simulate(prog, arch, extrapolate=True)
    assert not full.extrapolated and fast.extrapolated
    assert "steady state" in fast.note and "of 32 iterations" in fast.note
    assert fast.cycles == pytest.approx(full.cycles, rel=0.02)
    for tensor, nbytes in full.dram_read_bytes_by_tensor.items():
        assert fast.dram_read_bytes_by_tensor[tensor] == pytest.approx(nbytes, rel=0.02)
    assert fast.utilisation["compute"] == pytest.approx(full.utilisation["compute"], abs=0.02)


def test_spine_and_plan(wh) -> None:
    prog = gemm_program(wh, gemm_grid_config(wh, 2048, 1024, 2048, (8, 8), 4, (1, 2)))
    assert spine(prog) == [8, 4]
    assert plan([8, 4], 4) == ([1, 4], 4)
    assert plan([8, 4], 8) == ([2, 4], 8)
    assert plan([32, 32], 8) == ([1, 8], 8)


def test_functional_and_trace_runs_never_extrapolate(wh) -> None:
    prog = gemm_program(wh, gemm_grid_config(wh, 2048, 1024, 2048, (8, 8), 4, (1, 2)))
    with pytest.raises(ValueError, match="only in timing-only runs"):
        simulate(prog, wh, functional=True, extrapolate=True)
    small = gemm_program(wh, gemm_grid_config(wh, 256, 256, 256, (4, 4), 2))
    assert not simulate(small, wh, extrapolate=None).extrapolated  # small programs run in full
