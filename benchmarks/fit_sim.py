"""Fit the unpacker's cycles per tile (one constant per chip and input format) to published GEMM
device times, with leave-shapes-out cross-validation; write the fit report the YAMLs cite.

The structure is fixed by `loom.cost` / `loom.sim.tensix` (three Tensix threads; a matmul step
streams one operand through its unpacker once per tile product and unpacks the other once per
subblock row or column, as TT-Metal's matmul unpacker does); what the
published sources do not give is how many cycles the unpacker takes per tile of each format. For
each candidate value the whole device-time GEMM set of a chip is simulated with every format's
unpack cost at that value (points of one input format depend only on that format's cost), and
each format keeps the value with the smallest mean |log(predicted / measured)|.

Cross-validation: the shapes (M, K, N) are split into five folds; each fold's points are
predicted with the value chosen on the other folds. Training and cross-validation errors are
geometric means of |error| over points, as `loom calibrate` reports them.

Usage: .venv/bin/python benchmarks/fit_sim.py [--chips wormhole_n150 blackhole_p150] [--jobs 2]
Writes benchmarks/results/fit_sim.json; copy its values into the YAMLs (they say `fitted:`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import loom.calibrate.common as common  # noqa: E402
import loom.calibrate.gemm as gemm  # noqa: E402
from loom.arch import load_arch  # noqa: E402
from loom.arch.schema import DataMover  # noqa: E402
from loom.calibrate import calibrate, load_points  # noqa: E402

GROUND_TRUTH = ROOT.parent / "shared" / "reference" / "ground_truth"
FILES = {"wormhole_n150": "gemm_wormhole_n150.yaml", "blackhole_p150": "gemm_blackhole_p150.yaml"}
CANDIDATES = (8, 16, 24, 32, 40, 48, 56, 64)
FORMATS = {"bfloat16": "bfloat16", "bf16": "bfloat16", "bfp8_b": "bfp8_b", "bfp4_b": "bfp4_b"}
FOLDS = 5
REPORT = ROOT / "benchmarks" / "results" / "fit_sim.json"
METRIC = "device_time_us"


def _with_unpack(value: int):
    """`load_arch` with every input format's unpack cost set to `value` (worker processes fork
    after the patch, so they see it too)."""
    def load(name):
        arch = load_arch(name)
        table = {d: value for d in arch.unpack.cycles_per_tile if d != "float32"}
        table["float32"] = arch.unpack.cycles_per_tile["float32"]
        return arch.model_copy(update={"unpack": DataMover(cycles_per_tile=table)})
    return load


def _shape_key(point) -> str:
    shape = point.raw.get("shape", {})
    return f"{shape.get('M')}x{shape.get('K')}x{shape.get('N')}"


def _fold(shape: str) -> int:
    return int(hashlib.sha256(shape.encode()).hexdigest(), 16) % FOLDS


def _log_errors(points, jobs: int, value: int) -> dict[str, tuple[str, str, float]]:
    """Point id -> (format, shape, |log(predicted / measured)|) at one candidate value."""
    common.load_arch = gemm.load_arch = _with_unpack(value)
    try:
        rows = calibrate(points, jobs=jobs)
    finally:
        common.load_arch = gemm.load_arch = load_arch
    shapes = {p.id: _shape_key(p) for p in points}
    out = {}
    for row in rows:
        if row.skipped or row.metric != METRIC or not row.measured or not row.predicted:
            continue
        fmt = FORMATS.get(row.dtype or "")
        if fmt is not None:
            out[row.id] = (fmt, shapes[row.id], abs(math.log(row.predicted / row.measured)))
    return out


def _geomean_error(logs: list[float]) -> float:
    """Geometric mean of |error| (as `loom calibrate` reports it) from |log ratio| values."""
    errors = [max(abs(math.expm1(x)), 1e-9) for x in logs]
    return math.exp(sum(math.log(e) for e in errors) / len(errors)) if errors else float("nan")


def fit_chip(chip: str, jobs: int) -> dict:
    points = [p for p in load_points(GROUND_TRUTH / FILES[chip]) if any("device" in m.metric for m in p.measured)]
    by_value = {}
    for value in CANDIDATES:
        start = time.time()
        by_value[value] = _log_errors(points, jobs, value)
        print(f"  {chip} unpack {value:3d} cycles/tile: {len(by_value[value])} points, "
              f"{time.time() - start:.0f} s", file=sys.stderr)
    ids = sorted(set.intersection(*(set(v) for v in by_value.values())))
    result = {}
    for fmt in sorted({by_value[CANDIDATES[0]][i][0] for i in ids}):
        mine = [i for i in ids if by_value[CANDIDATES[0]][i][0] == fmt]

        def loss(value: int, keep, mine=mine) -> float:
            chosen = [by_value[value][i][2] for i in mine if keep(i)]
            return sum(chosen) / len(chosen) if chosen else math.inf

        best = min(CANDIDATES, key=lambda v: loss(v, lambda i: True))
        held_out = []
        for fold in range(FOLDS):
            def train(i, fold=fold, best=best):
                return _fold(by_value[best][i][1]) != fold
            pick = min(CANDIDATES, key=lambda v, t=train: loss(v, t))
            held_out += [by_value[pick][i][2] for i in mine if not train(i)]
        result[fmt] = {
            "unpack_cycles_per_tile": best,
            "points": len(mine),
            "shapes": len({by_value[best][i][1] for i in mine}),
            "train_geomean_error": round(_geomean_error([by_value[best][i][2] for i in mine]), 4),
            "cv_geomean_error": round(_geomean_error(held_out), 4),
            "loss_by_value": {str(v): round(loss(v, lambda i: True), 4) for v in CANDIDATES},
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chips", nargs="+", default=list(FILES))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    report = json.loads(REPORT.read_text()) if REPORT.exists() else {}
    for chip in args.chips:
        report[chip] = fit_chip(chip, args.jobs)
        for fmt, fit in report[chip].items():
            print(f"{chip} {fmt}: unpack {fit['unpack_cycles_per_tile']} cycles/tile on {fit['points']} points "
                  f"({fit['shapes']} shapes): training {fit['train_geomean_error']:.1%}, "
                  f"leave-shapes-out CV {fit['cv_geomean_error']:.1%}")
    report["metric"] = METRIC
    report["candidates"] = list(CANDIDATES)
    REPORT.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(f"wrote {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
