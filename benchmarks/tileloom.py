"""TileLoom-style tuning against Loom's tuning-free pick (issue #9): per GEMM shape, TileLoom's
anchor (a fixed menu of power-of-two block sizes for every candidate, ranked by the model, the
model's top 5 simulated, best kept: the "profile-based" flow) against Loom's solver top-1, both
simulated on loom.sim; with the time each flow spends (TileLoom's includes its simulations, the
stand-in for on-device profiling).

    .venv/bin/python benchmarks/tileloom.py [--arch wormhole_n150] [--max-k 2048] [--limit N]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loom.bench.oracle import tileloom_tuning  # noqa: E402
from loom.bench.rows import GEMM_K, GEMM_MN  # noqa: E402
from loom.kernel_file import load_kernel_file  # noqa: E402
from loom.pipeline import compile as compile_kernel  # noqa: E402
from loom.run import run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--arch", default="wormhole_n150")
    parser.add_argument("--max-k", type=int, default=2048, help="skip K above this (long simulations)")
    parser.add_argument("--limit", type=int, default=None)
    opts = parser.parse_args()
    source = load_kernel_file(Path(__file__).resolve().parents[1] / "examples" / "matmul.py")
    shapes = [{"M": m, "N": n, "K": k} for m, n in GEMM_MN for k in GEMM_K if k <= opts.max_k][:opts.limit]
    print(f"GEMM on {opts.arch}: Loom top-1 vs TileLoom-style menu tuning (simulated on loom.sim)")
    ratios = []
    for shape in shapes:
        args = source.example_args(shape, meta=True)
        start = time.perf_counter()
        loom = compile_kernel(source.kernel, args, opts.arch, shape=shape)
        loom_seconds = time.perf_counter() - start
        loom_cycles = run(loom, args).sim.cycles
        tuned, tuned_seconds, label = tileloom_tuning(source.kernel, args, opts.arch, shape)
        ratios.append(tuned / loom_cycles)
        print(f"  {shape['M']:>5}x{shape['N']:<5}x{shape['K']:<5} "
              f"loom {loom_cycles:>12,.0f} cyc in {loom_seconds:5.1f} s   "
              f"tileloom {tuned:>12,.0f} cyc in {tuned_seconds:6.1f} s   loom speedup {tuned / loom_cycles:5.2f}x  "
              f"({label})", flush=True)
    geo = math.exp(statistics.fmean(math.log(r) for r in ratios))
    print(f"SUMMARY {len(ratios)} shapes: Loom's top-1 is {geo:.2f}x TileLoom-style tuning's best (geomean; >1 = Loom "
          f"faster), range {min(ratios):.2f}-{max(ratios):.2f}")


if __name__ == "__main__":
    main()
