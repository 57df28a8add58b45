"""Loom vs TTNN's default choices (and TTNN hand-tuned) on loom.sim, over the paper's shape sets
(simulated figures).

    .venv/bin/python benchmarks/paper.py [--kernel matmul|flash_attention|flash_decode|all]
                                         [--arch wormhole_n150|blackhole_p150|both] [--limit N]
                                         [--baseline default|tuned|both]
Writes benchmarks/results/<kernel>_<arch>.csv and prints one summary line per kernel and chip.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loom.bench.paper import SUMMARY_KEYS, bench  # noqa: E402
from loom.bench.rows import BASELINE_COLUMNS, BASELINE_LABELS  # noqa: E402

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
    parser.add_argument("--baseline", default="default", choices=("default", "tuned", "both"))
    opts = parser.parse_args()
    baselines = ("default", "tuned") if opts.baseline == "both" else (opts.baseline,)
    kernels = ["matmul", "flash_attention", "flash_decode"] if opts.kernel == "all" else [opts.kernel]
    archs = ["wormhole_n150", "blackhole_p150"] if opts.arch == "both" else [opts.arch]
    out = Path(__file__).parent / "results"

    def progress(i, n, row):
        against = ""
        for b in baselines:
            cycles, speedup = (getattr(row, c) for c in BASELINE_COLUMNS[b])
            name = "ttnn" if b == "default" else f"ttnn-{b}"
            speed = f"{speedup:.2f}x" if speedup else "n/a"
            against += f"{name} {(cycles or 0):>13,.0f} cyc  speedup {speed:>6}  "
        print(f"  [{i}/{n}] {row.shape:26} loom {row.loom_sim_cycles:>13,.0f} cyc  {against}model err "
              f"{row.model_error:+.0%}  compile {row.compile_seconds:.1f}s  {row.loom_candidate} "
              f"{row.loom_block_sizes} {row.note}", flush=True)

    for kernel in kernels:
        for arch in archs:
            print(f"{kernel} on {arch}:", flush=True)
            rows, s = bench(kernel, arch, limit=opts.limit, jobs=opts.jobs, out_dir=out, progress=progress,
                            baselines=baselines)
            against = ""
            for b in baselines:
                geo, low, high = (s[k] for k in SUMMARY_KEYS[b])
                paper = f" (paper {PAPER[(kernel, arch)]:.2f}x)" if b == "default" else ""
                against += (f"geomean speedup vs {BASELINE_LABELS[b] if b != 'default' else 'TTNN'} (simulated) "
                            f"{geo:.2f}x{paper}, range {low:.2f}-{high:.2f}, ")
            print(f"SUMMARY {kernel:15} {arch:15} shapes {s['shapes']:2d}  {against}model-vs-sim geomean |error| "
                  f"{s['geomean_abs_model_error']:.1%}, median compile {s['median_compile_seconds']:.2f}s", flush=True)


if __name__ == "__main__":
    main()
