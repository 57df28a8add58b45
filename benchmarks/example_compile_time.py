"""Compile time of every kernel in examples/ at its default sizes (issue 17's target: stages 2-6 at most
2 s each), on each architecture, median of `--runs` compiles; stage 1 (Helion's trace) is shown apart.

    .venv/bin/python benchmarks/example_compile_time.py [--arch wormhole_n150|blackhole_p150|ring32|all]
        [--runs 3] [--jobs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loom.kernel_file import load_kernel_file  # noqa: E402
from loom.pipeline import compile as compile_kernel  # noqa: E402

STAGE_1 = "frontend (stage 1)"
TARGET_S = 2.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--arch", default="wormhole_n150")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None)
    opts = parser.parse_args()
    archs = ["wormhole_n150", "blackhole_p150", "ring32"] if opts.arch == "all" else [opts.arch]
    examples = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.py"))
    worst = []
    print(f"{'kernel':<20} {'arch':<16} {'stages 2-6 (s)':>15} {'stage 1 (s)':>12}")
    for arch in archs:
        for path in examples:
            source = load_kernel_file(path)
            args = source.example_args()
            runs = [compile_kernel(source.kernel, args, arch, jobs=opts.jobs) for _ in range(opts.runs)]
            rest = statistics.median(sum(v for s, v in r.seconds.items() if s != STAGE_1) for r in runs)
            trace = statistics.median(r.seconds.get(STAGE_1, 0.0) for r in runs)
            worst.append((rest, path.stem, arch))
            print(f"{path.stem:<20} {arch:<16} {rest:>15.2f} {trace:>12.2f}", flush=True)
    over = [w for w in worst if w[0] > TARGET_S]
    slowest = max(worst)
    print(f"slowest: {slowest[1]} on {slowest[2]}, {slowest[0]:.2f} s; over {TARGET_S:.0f} s: "
          + (", ".join(f"{k} on {a} ({s:.2f} s)" for s, k, a in over) or "none"))


if __name__ == "__main__":
    main()
