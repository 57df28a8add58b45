"""Loom vs TTNN's default choices on loom.sim, over the paper's shape sets (simulated figures).

    .venv/bin/python benchmarks/paper.py [--kernel matmul|flash_attention|flash_decode|all]
                                         [--arch wormhole_n150|blackhole_p150|both] [--limit N]
Writes benchmarks/results/<kernel>_<arch>.csv and prints one summary line per kernel and chip.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loom.bench.paper import bench  # noqa: E402

PAPER = {  # ../shared/reference/paper_results.yaml: geometric-mean speedup over TTNN
    ("matmul", "wormhole_n150"): 0.99, ("matmul", "blackhole_p150"): 1.16,
    ("flash_attention", "wormhole_n150"): 2.29, ("flash_attention", "blackhole_p150"): 2.15,
    ("flash_decode", "wormhole_n150"): 1.01, ("flash_decode", "blackhole_p150"): 1.17,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kernel", default="all")
    parser.add_argument("--arch", default="both")
    parser.add_argument("--limit", type=int, default=None, help="only the first N shapes")
    parser.add_argument("--jobs", type=int, default=1)
    opts = parser.parse_args()
    kernels = ["matmul", "flash_attention", "flash_decode"] if opts.kernel == "all" else [opts.kernel]
    archs = ["wormhole_n150", "blackhole_p150"] if opts.arch == "both" else [opts.arch]
    out = Path(__file__).parent / "results"

    def progress(i, n, row):
        speed = f"{row.speedup_vs_ttnn:.2f}x" if row.speedup_vs_ttnn else "n/a"
        print(f"  [{i}/{n}] {row.shape:26} loom {row.loom_sim_cycles:>13,.0f} cyc  ttnn "
              f"{(row.ttnn_sim_cycles or 0):>13,.0f} cyc  speedup {speed:>6}  model err {row.model_error:+.0%}  "
              f"compile {row.compile_seconds:.1f}s  {row.loom_candidate} {row.loom_block_sizes} {row.note}",
              flush=True)

    for kernel in kernels:
        for arch in archs:
            print(f"{kernel} on {arch}:", flush=True)
            rows, s = bench(kernel, arch, limit=opts.limit, jobs=opts.jobs, out_dir=out, progress=progress)
            print(f"SUMMARY {kernel:15} {arch:15} shapes {s['shapes']:2d}  geomean speedup vs TTNN (simulated) "
                  f"{s['geomean_speedup_vs_ttnn']:.2f}x (paper {PAPER[(kernel, arch)]:.2f}x), range "
                  f"{s['min_speedup']:.2f}-{s['max_speedup']:.2f}, model-vs-sim geomean |error| "
                  f"{s['geomean_abs_model_error']:.1%}, median compile {s['median_compile_seconds']:.2f}s", flush=True)


if __name__ == "__main__":
    main()
