"""How fast the simulator runs: TTNN-default bf16 GEMMs on the 8x8 Wormhole grid, timing only.

Targets (issue #6): 4096^3 under 10 s, 16384^3 under 60 s, peak memory under 4 GiB. Prints
wall time, simulated events, whether steady-state extrapolation was used, and the process's
peak resident memory. `--full` also runs 16384^3 without extrapolation.

Usage: .venv/bin/python benchmarks/sim_speed.py [--full]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loom.arch import load_arch  # noqa: E402
from loom.sim import simulate  # noqa: E402
from loom.sim.gemm_workload import gemm_program, ttnn_default_config  # noqa: E402

TARGET_S = {4096: 10.0, 8192: None, 16384: 60.0}


def run(n: int, extrapolate: bool | None) -> None:
    """Build and simulate one n^3 GEMM and print a line."""
    arch = load_arch("wormhole_n150")
    start = time.perf_counter()
    cfg = ttnn_default_config(arch, n, n, n, "bfloat16")
    program = gemm_program(arch, cfg)
    r = simulate(program, arch, extrapolate=extrapolate)
    wall = time.perf_counter() - start
    target = TARGET_S.get(n)
    verdict = "" if target is None else f" (target < {target:.0f} s: {'ok' if wall < target else 'MISSED'})"
    mode = "extrapolated" if r.extrapolated else "full simulation"
    print(f"{n:>5}^3 bf16 on {arch.name}: {wall:6.2f} s wall{verdict}, {mode}, {r.events:,.0f} events, "
          f"{r.cycles:,.0f} cycles = {r.tflops():.1f} TFLOPS; {cfg.describe()}")
    if r.extrapolated:
        print(f"        {r.note}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="also simulate 16384^3 without extrapolation")
    args = ap.parse_args()
    run(4096, None)
    run(8192, None)
    run(16384, None)
    if args.full:
        run(16384, False)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    print(f"peak resident memory {peak:.2f} GiB (target < 4 GiB: {'ok' if peak < 4 else 'MISSED'})")


if __name__ == "__main__":
    main()
