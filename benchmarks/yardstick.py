"""Write loom/calibrate/yardstick.json, the simulator's standing that `loom run` and `loom bench` print
beside their figures, from the rows `benchmarks/calibrate_all.py --tag TAG` wrote.

Usage: .venv/bin/python benchmarks/yardstick.py --tag TAG   (after calibrate_all.py --tag TAG, all four files)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loom.calibrate.yardstick import STANDING, standing_from_rows  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tag", required=True)
    ap.add_argument("--date", required=True, help="when calibrate_all.py ran (printed with the figures)")
    args = ap.parse_args()
    files = sorted((ROOT / "benchmarks" / "results").glob(f"calibration_{args.tag}_*.json"))
    if not files:
        sys.exit(f"no benchmarks/results/calibration_{args.tag}_*.json: run benchmarks/calibrate_all.py first")
    rows = [row for path in files for row in json.loads(path.read_text())["rows"]]
    standing = {"measured": f"loom calibrate {args.date}, benchmarks/results/calibration_{args.tag}_*",
                "classes": standing_from_rows(rows)}
    STANDING.write_text(json.dumps(standing, indent=1) + "\n")
    for c in standing["classes"]:
        print(f"{c['arch']:22} {c['kind']:14} n={c['n']:4} geomean |e| {c['geomean_abs_error']:6.1%} "
              f"signed {c['signed_mean_error']:+6.1%} ({c['min_error']:+.0%} to {c['max_error']:+.0%})")
    print(f"wrote {STANDING.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
