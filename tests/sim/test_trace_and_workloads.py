"""Perfetto traces, the calibration microbenchmarks, and TTNN's default GEMM configs."""

from __future__ import annotations

import json

import pytest

from loom.arch import load_arch
from loom.backend.validate import check_program
from loom.sim import simulate
from loom.sim.gemm_workload import gemm_grid_config, gemm_program, ttnn_default_config
from loom.sim.workloads import microbenchmarks


def test_trace_is_valid_json_with_one_track_per_core_and_engine(wh, tmp_path) -> None:
    prog = gemm_program(wh, gemm_grid_config(wh, 256, 256, 256, (4, 2), 2))
    r = simulate(prog, wh, trace=True)
    path = r.write_trace(tmp_path / "gemm.json")
    events = json.loads(path.read_text())["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert len(processes) == 8 and set(processes.values()) == {f"core {c}" for c in prog.cores}
    assert len(threads) == 8 * 3 and set(threads.values()) == {"reader", "compute", "writer"}
    kinds = {(e["ph"], e.get("cat")) for e in events}
    assert {("X", "op"), ("X", "issue"), ("b", "noc"), ("e", "noc")} <= kinds
    assert all(e["ts"] >= 0 and e.get("dur", 0) >= 0 for e in events if e["ph"] in "Xbe")
    with pytest.raises(ValueError, match="trace=True"):
        simulate(prog, wh).write_trace(tmp_path / "none.json")


RATE_OF = {"dram_read": "dram_read", "dram_write": "dram_write", "core_to_core_write": "core_to_core",
           "core_to_core_read": "core_from_core", "one_to_all_unicast": "scatter_all",
           "one_to_all_multicast": "multicast", "one_to_all_multicast_linked": "multicast_linked",
           "all_to_one": "gather_all"}


@pytest.mark.parametrize("arch_name", ["wormhole_n150", "blackhole_p150"])
def test_microbenchmarks_reproduce_the_measured_rates(arch_name: str) -> None:
    """Consistency: the measured rates enter as stream/port ceilings, so each microbenchmark must
    come back within 10 % of its rate after latencies, issue costs and routing are added."""
    arch = load_arch(arch_name)
    for key, bench in microbenchmarks(arch).items():
        r = simulate(bench.program, arch)
        rate = bench.nbytes / r.program_cycles
        assert rate == pytest.approx(getattr(arch.rates, RATE_OF[key]), rel=0.10), key


def test_ttnn_default_configs(wh, bh) -> None:
    def blocks(arch, n: tuple, dtype: str) -> tuple:
        c = ttnn_default_config(arch, *n, dtype)
        return (c.grid, c.per_core_M, c.per_core_N, c.out_block_h, c.out_block_w, c.in0_block_w,
                c.out_subblock, c.fidelity)
    assert blocks(wh, (1024, 1024, 1024), "bfloat16") == ((8, 8), 4, 4, 4, 4, 4, (4, 2), "HiFi2")
    assert blocks(wh, (4096, 4096, 4096), "bfloat16") == ((8, 8), 16, 16, 8, 8, 16, (4, 2), "HiFi2")
    assert blocks(wh, (4096, 4096, 4096), "bfp8_b") == ((8, 8), 16, 16, 8, 16, 16, (4, 2), "LoFi")
    assert blocks(wh, (16384, 16384, 16384), "bfloat16")[3:6] == (2, 2, 64)
    assert blocks(bh, (5120, 6656, 6656), "bfloat16") == ((13, 10), 16, 16, 8, 8, 16, (4, 2), "HiFi2")
    prog = gemm_program(wh, ttnn_default_config(wh, 4096, 4096, 4096))
    check_program(prog, wh)
    assert max(prog.l1_bytes(wh).values()) <= wh.l1.usable_bytes
    assert len(prog.groups) == 4 and len(prog.cores) == 64
