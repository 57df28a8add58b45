"""Predicted against measured device time for the calibration set: a log-log scatter, one colour per
chip, from the JSON that `benchmarks/calibrate_all.py --tag TAG` writes.

Usage: .venv/bin/python benchmarks/calibration_plot.py [--tag after]
Writes benchmarks/results/calibration_<tag>.png.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
FILES = ("gemm_wormhole_n150", "gemm_blackhole_p150")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tag", default="after")
    args = parser.parse_args()
    fig, ax = plt.subplots(figsize=(6, 6))
    low, high = float("inf"), 0.0
    for name, colour in zip(FILES, ("tab:blue", "tab:orange")):
        rows = json.loads((RESULTS / f"calibration_{args.tag}_{name}.json").read_text())["rows"]
        points = [(r["measured"], r["predicted"]) for r in rows
                  if not r["skipped"] and r["metric"] == "device_time_us" and r["measured"] and r["predicted"]]
        measured, predicted = zip(*points)
        low, high = min(low, *measured, *predicted), max(high, *measured, *predicted)
        ax.scatter(measured, predicted, s=10, alpha=0.6, color=colour,
                   label=f"{name.removeprefix('gemm_')} ({len(points)} points)")
    ax.plot([low, high], [low, high], color="grey", linewidth=1, label="predicted = measured")
    for factor in (0.9, 1.1):
        ax.plot([low, high], [low * factor, high * factor], color="grey", linewidth=0.5, linestyle="--")
    ax.set(xscale="log", yscale="log", xlabel="measured device time (us)", ylabel="loom.sim (us)",
           title=f"GEMM device time, published vs simulated ({args.tag}); dashed: +-10 %")
    ax.legend()
    out = RESULTS / f"calibration_{args.tag}.png"
    fig.savefig(out, dpi=120, bbox_inches="tight")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
