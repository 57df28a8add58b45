"""Fit the unpacker's cycles per tile (one constant per chip and input format) and each core's kernel
setup (one constant per chip) to published GEMM device times, with leave-shapes-out cross-validation;
write the fit report the YAMLs cite.

The structure is fixed by `loom.cost` / `loom.sim.tensix` (three Tensix threads; a matmul step
streams one operand through its unpacker once per tile product and unpacks the other once per
subblock row or column, as TT-Metal's matmul unpacker does) and by `loom.sim.engine` (every core's
programs start `kernel_setup_cycles` after the launch: firmware start, circular buffers, engine
configuration, which the device profiler's kernel time includes). What the published sources do not
give is how many cycles the unpacker takes per tile of each format, nor how long that setup is.

For each unpack candidate the whole device-time GEMM set of a chip is simulated with every format's
unpack cost at that value and no setup (points of one input format depend only on that format's
cost). The setup delays every role of every core alike, so it adds itself to every simulated time
(`tests/sim/test_kernel_setup.py` holds the simulator to that); each setup candidate is therefore
added to those times rather than simulated again. The chip keeps the setup, and each format the
unpack value, with the smallest mean |log(predicted / measured)| over all the chip's points.

Cross-validation: the shapes (M, K, N) are split into five folds; each fold's points are
predicted with the values chosen on the other folds. Training and cross-validation errors are
geometric means of |error| over points, as `loom calibrate` reports them.

Usage: .venv/bin/python benchmarks/fit_sim.py [--chips wormhole_n150 blackhole_p150] [--jobs 2]
    [--candidates 16 24 32 ...]
Writes benchmarks/results/fit_sim.json; copy its values into the YAMLs (they say `fitted:`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

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
SETUPS = tuple(range(0, 3001, 50))
"""Kernel setup candidates in cycles (0 to 3 us at 1 GHz)."""
FORMATS = {"bfloat16": "bfloat16", "bf16": "bfloat16", "bfp8_b": "bfp8_b", "bfp4_b": "bfp4_b"}
FOLDS = 5
REPORT = ROOT / "benchmarks" / "results" / "fit_sim.json"
METRIC = "device_time_us"


def _with_unpack(value: int):
    """`load_arch` with every input format's unpack cost set to `value` and no kernel setup (worker
    processes fork after the patch, so they see it too)."""
    def load(name):
        arch = load_arch(name)
        table = {d: value for d in arch.unpack.cycles_per_tile if d != "float32"}
        table["float32"] = arch.unpack.cycles_per_tile["float32"]
        return arch.model_copy(update={"unpack": DataMover(cycles_per_tile=table), "kernel_setup_cycles": 0})
    return load


def _shape_key(point) -> str:
    shape = point.raw.get("shape", {})
    return f"{shape.get('M')}x{shape.get('K')}x{shape.get('N')}"


def _fold(shape: str) -> int:
    return int(hashlib.sha256(shape.encode()).hexdigest(), 16) % FOLDS


def _simulated(points, jobs: int, value: int) -> dict[str, tuple[str, float, float, float]]:
    """Point id -> (format, measured us, predicted us without setup, cycles per us) at one unpack value."""
    common.load_arch = gemm.load_arch = _with_unpack(value)
    try:
        rows = calibrate(points, jobs=jobs)
    finally:
        common.load_arch = gemm.load_arch = load_arch
    out = {}
    for row in rows:
        if row.skipped or row.metric != METRIC or not row.measured or not row.predicted:
            continue
        fmt = FORMATS.get(row.dtype or "")
        if fmt is not None:
            out[row.id] = (fmt, row.measured, row.predicted, load_arch(row.arch).clock_ghz * 1000.0)
    return out


def _geomean_error(logs) -> float:
    """Geometric mean of |error| (as `loom calibrate` reports it) from |log ratio| values."""
    errors = np.maximum(np.abs(np.expm1(np.asarray(logs, dtype=float))), 1e-9)
    return float(np.exp(np.log(errors).mean())) if errors.size else float("nan")


class Fit:
    """The |log error| of every point at every (unpack value, setup) pair: `logs[u, s, i]`."""

    def __init__(self, ids: list[str], by_value: dict[int, dict], candidates: tuple[int, ...], shapes: dict):
        self.ids, self.candidates = ids, candidates
        first = by_value[candidates[0]]
        self.formats = np.array([first[i][0] for i in ids])
        self.fold = np.array([_fold(shapes[i]) for i in ids])
        measured = np.array([first[i][1] for i in ids])
        per_us = np.array([first[i][3] for i in ids])
        predicted = np.array([[by_value[u][i][2] for i in ids] for u in candidates])  # [u, i]
        shift = np.array(SETUPS, dtype=float)[:, None] / per_us[None, :]  # [s, i], in us
        self.logs = np.abs(np.log((predicted[:, None, :] + shift[None, :, :]) / measured[None, None, :]))

    def picks_at(self, s: int, keep: np.ndarray) -> tuple[dict[str, int], float]:
        """(format -> its best unpack index, summed |log error|) over the points in `keep` at setup index `s`."""
        picks, total = {}, 0.0
        for fmt in sorted(set(self.formats)):
            losses = self.logs[:, s, keep & (self.formats == fmt)].sum(axis=1)
            picks[fmt] = int(np.argmin(losses))
            total += float(losses[picks[fmt]])
        return picks, total

    def choose(self, keep: np.ndarray) -> tuple[int, dict[str, int], float]:
        """(setup index, format -> unpack index, summed |log error|) best over the points in `keep`."""
        best = None
        for s in range(len(SETUPS)):
            picks, total = self.picks_at(s, keep)
            if best is None or total < best[2]:
                best = (s, picks, total)
        return best

    def errors(self, s: int, picks: dict[str, int], mask: np.ndarray) -> np.ndarray:
        """|log error| of the points in `mask` at setup index `s` and each format's unpack pick."""
        u = np.array([picks[f] for f in self.formats])
        return self.logs[u, s, np.arange(len(self.ids))][mask]


def fit_chip(chip: str, jobs: int, candidates: tuple[int, ...] = CANDIDATES) -> dict:
    points = [p for p in load_points(GROUND_TRUTH / FILES[chip]) if any("device" in m.metric for m in p.measured)]
    shapes = {p.id: _shape_key(p) for p in points}
    by_value = {}
    for value in candidates:
        start = time.time()
        by_value[value] = _simulated(points, jobs, value)
        print(f"  {chip} unpack {value:3d} cycles/tile: {len(by_value[value])} points, "
              f"{time.time() - start:.0f} s", file=sys.stderr)
    ids = sorted(set.intersection(*(set(v) for v in by_value.values())))
    fit = Fit(ids, by_value, candidates, shapes)
    everything = np.ones(len(ids), dtype=bool)
    s, picks, _ = fit.choose(everything)
    held_out = np.zeros(len(ids))
    for fold in range(FOLDS):
        test = fit.fold == fold
        fs, fpicks, _ = fit.choose(~test)
        held_out[test] = fit.errors(fs, fpicks, test)
    trained = fit.errors(s, picks, everything)
    unpack = {}
    for fmt in sorted(picks):
        mine = fit.formats == fmt
        unpack[fmt] = {
            "unpack_cycles_per_tile": candidates[picks[fmt]],
            "points": int(mine.sum()),
            "shapes": len({shapes[i] for i, m in zip(ids, mine) if m}),
            "train_geomean_error": round(_geomean_error(trained[mine]), 4),
            "cv_geomean_error": round(_geomean_error(held_out[mine]), 4),
            "loss_by_value": {str(v): round(float(fit.logs[k, s, mine].mean()), 4) for k, v in enumerate(candidates)},
        }
    without = _without_setup(fit, everything)
    setup = {
        "kernel_setup_cycles": SETUPS[s],
        "points": len(ids),
        "train_geomean_error": round(_geomean_error(trained), 4),
        "cv_geomean_error": round(_geomean_error(held_out), 4),
        "train_geomean_error_without_setup": round(_geomean_error(without), 4),
        "loss_by_value": {str(v): round(float(_best_at(fit, k, everything)), 4) for k, v in enumerate(SETUPS)
                          if v % 250 == 0},
    }
    return {"unpack": unpack, "kernel_setup": setup}


def _best_at(fit: Fit, s: int, keep: np.ndarray) -> float:
    """Mean |log error| at setup index `s`, each format at its best unpack value there."""
    return fit.picks_at(s, keep)[1] / int(keep.sum())


def _without_setup(fit: Fit, keep: np.ndarray) -> np.ndarray:
    """|log error| of every point with no setup, each format at its best unpack value then."""
    return fit.errors(0, fit.picks_at(0, keep)[0], keep)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chips", nargs="+", default=list(FILES))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--candidates", type=int, nargs="+", default=list(CANDIDATES),
                        help="unpack cycles per tile to try (default: %(default)s)")
    args = parser.parse_args()
    report = json.loads(REPORT.read_text()) if REPORT.exists() else {}
    for chip in args.chips:
        report[chip] = fit_chip(chip, args.jobs, tuple(args.candidates))
        setup = report[chip]["kernel_setup"]
        print(f"{chip}: kernel setup {setup['kernel_setup_cycles']} cycles on {setup['points']} points: training "
              f"{setup['train_geomean_error']:.1%} (without setup {setup['train_geomean_error_without_setup']:.1%}), "
              f"leave-shapes-out CV {setup['cv_geomean_error']:.1%}")
        for fmt, fit in report[chip]["unpack"].items():
            print(f"{chip} {fmt}: unpack {fit['unpack_cycles_per_tile']} cycles/tile on {fit['points']} points "
                  f"({fit['shapes']} shapes): training {fit['train_geomean_error']:.1%}, "
                  f"leave-shapes-out CV {fit['cv_geomean_error']:.1%}")
    report["metric"] = METRIC
    report.pop("candidates", None)  # each fit's loss_by_value names the values tried
    REPORT.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(f"wrote {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
