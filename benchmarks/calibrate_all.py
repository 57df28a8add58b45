"""Reproduce the calibration table: what `loom calibrate FILE --jobs N` and `... --json` print, for
each shared ground-truth file, with its wall time, written to
benchmarks/results/calibration_<tag>_<file>.{txt,json} and calibration_<tag>_times.txt.

Usage: .venv/bin/python benchmarks/calibrate_all.py [--tag before] [--jobs 2] [--files NAME ...]
(one simulation pass per file; the text and JSON are the CLI's two renderings of its rows).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loom.calibrate import calibrate, load_points, point_table, summarise, summary_table  # noqa: E402

GROUND_TRUTH = ROOT.parent / "shared" / "reference" / "ground_truth"
FILES = ["gemm_wormhole_n150", "gemm_blackhole_p150", "sdpa_blackhole_p150", "data_movement"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tag", default="before")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--files", nargs="*", default=FILES)
    ap.add_argument("--ground-truth", type=Path, default=GROUND_TRUTH)
    args = ap.parse_args()
    out = ROOT / "benchmarks" / "results"
    times = []
    for name in args.files:
        points = load_points(args.ground_truth / f"{name}.yaml")
        start = time.perf_counter()
        rows = calibrate(points, jobs=args.jobs)
        wall = time.perf_counter() - start
        summary = summarise(rows)
        (out / f"calibration_{args.tag}_{name}.json").write_text(
            json.dumps({"rows": [r.as_json() for r in rows], "summary": summary}, indent=1) + "\n")
        (out / f"calibration_{args.tag}_{name}.txt").write_text(
            point_table(rows) + "\n\n" + summary_table(summary, rows) + "\n")
        times.append(f"{name}: {len(points)} points, {wall:.0f} s wall (--jobs {args.jobs})")
        print(times[-1], flush=True)
    (out / f"calibration_{args.tag}_times.txt").write_text("\n".join(times) + "\n")


if __name__ == "__main__":
    main()
