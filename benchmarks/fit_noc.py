"""Fit the DRAM read and write latencies (one constant per chip and direction) to tt-metal's
"DRAM Interleaved Packet Sizes" sweeps, with leave-one-sweep-out cross-validation; write the fit
report the architecture YAMLs cite.

The structure is fixed by `loom.sim` (noc.py, movement.py) and by how `loom.calibrate.data_movement`
expresses a sweep point (one core, `num_transactions` transactions of whole tiles from or to one
DRAM bank, one barrier): the data queue on the (bank, core) stream at the measured per-core rate
(`rates.dram_read` / `rates.dram_write`, tt-metal's directed ideal tests), the DRAM bank, the links
and the core's port; a transfer is done a fixed `dram.read_latency_cycles` (`write_latency_cycles`)
after its last byte. What no source measures directly is that fixed latency as the test sees it
(first issue to barrier). The simulated kernel time is the latency-free time plus the latency, so
each point is simulated once with zero latency and every candidate latency is scored exactly; the
chosen value minimises the mean |log(predicted / measured)| over a chip's points of one direction
(Receiver = reads, Sender = writes). A final run with the chosen values checks the additivity.

Cross-validation: a sweep is the series of one (chip, direction, number of transactions), six
transaction sizes; each sweep is predicted with the latency fitted on the other sweeps of its chip
and direction. Training and cross-validation errors are geometric means of |error| over points, as
`loom calibrate` reports them.

Usage: .venv/bin/python benchmarks/fit_noc.py [--ground-truth DIR]
Writes benchmarks/results/fit_noc.json (each point with its measured and latency-free simulated
cycles, so that a test can re-run the choice and re-simulate a few points); copy its values into the
YAMLs (they say `fitted:`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loom.calibrate import load_points  # noqa: E402
from loom.calibrate.common import Skip  # noqa: E402
from loom.calibrate.data_movement import PACKET_TEST, packets_program, plan_data_movement  # noqa: E402
from loom.sim import simulate  # noqa: E402

GROUND_TRUTH = ROOT.parent / "shared" / "reference" / "ground_truth"
REPORT = ROOT / "benchmarks" / "results" / "fit_noc.json"
METRIC = "latency_cycles"
CANDIDATES = range(0, 1501)
FAMILY = {"wormhole_n150": "wormhole_n150", "blackhole_p150_11x10": "blackhole_p150"}
"""Architecture a sweep runs on -> the chip whose fit it is (the 11x10 Blackhole is the p150's silicon)."""
FIELD = {True: "read_latency_cycles", False: "write_latency_cycles"}


def sweep_points(ground_truth: Path) -> list[dict]:
    """The sweep points `loom calibrate` can express, with their latency-free simulated time."""
    out = []
    for point in load_points(ground_truth / "data_movement.yaml"):
        if (point.raw.get("shape") or {}).get("test") != PACKET_TEST:
            continue
        try:
            plan = plan_data_movement(point)
        except Skip:
            continue
        (spec,) = plan.specs
        read, tiles, count = spec.args
        arch = zero_latency(spec.arch)
        base = float(simulate(packets_program(arch, read, tiles, count), arch).program_cycles)
        out.append({"id": point.id, "arch": spec.arch, "chip": FAMILY[spec.arch], "read": read, "count": count,
                    "bytes": tiles * arch.dtypes.tile_bytes["bfloat16"],
                    "measured": plan.finish([{"kernel_cycles": 1.0}]).measured, "base": base})
    return out


def zero_latency(name: str):
    from loom.arch import load_arch

    arch = load_arch(name)
    return arch.model_copy(update={"dram": arch.dram.model_copy(update={"read_latency_cycles": 0,
                                                                       "write_latency_cycles": 0})})


def loss(points: list[dict], latency: int) -> float:
    return sum(abs(math.log((p["base"] + latency) / p["measured"])) for p in points) / len(points)


def best(points: list[dict]) -> int:
    return min(CANDIDATES, key=lambda v: loss(points, v))


def geomean_error(pairs: list[tuple[float, float]]) -> float:
    """Geometric mean of |predicted / measured - 1| (floored at 0.01 %, as `loom calibrate`)."""
    logs = [math.log(max(abs(p / m - 1), 1e-4)) for p, m in pairs]
    return math.exp(sum(logs) / len(logs))


def fit(points: list[dict]) -> dict:
    report: dict = {}
    for chip in sorted({p["chip"] for p in points}):
        report[chip] = {}
        for read in (True, False):
            mine = [p for p in points if p["chip"] == chip and p["read"] == read]
            value = best(mine)
            held_out = []
            for count in sorted({p["count"] for p in mine}):
                pick = best([p for p in mine if p["count"] != count])
                held_out += [(p["base"] + pick, p["measured"]) for p in mine if p["count"] == count]
            report[chip][FIELD[read]] = {
                "value": value, "points": len(mine), "sweeps": len({p["count"] for p in mine}),
                "train_geomean_error": round(geomean_error([(p["base"] + value, p["measured"]) for p in mine]), 4),
                "cv_geomean_error": round(geomean_error(held_out), 4),
                "data": [{k: p[k] for k in ("id", "arch", "count", "bytes", "measured", "base")} for p in mine],
            }
    return report


def check(points: list[dict], report: dict) -> float:
    """Largest |difference| between base + fitted latency and a full simulation with it."""
    from loom.arch import load_arch

    worst = 0.0
    for p in points:
        arch = load_arch(p["arch"])
        values = report[p["chip"]]
        arch = arch.model_copy(update={"dram": arch.dram.model_copy(update={
            f: values[f]["value"] for f in FIELD.values()})})
        tiles = p["bytes"] // arch.dtypes.tile_bytes["bfloat16"]
        full = float(simulate(packets_program(arch, p["read"], tiles, p["count"]), arch).program_cycles)
        worst = max(worst, abs(full - (p["base"] + values[FIELD[p["read"]]]["value"])))
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ground-truth", type=Path, default=GROUND_TRUTH)
    args = parser.parse_args()
    points = sweep_points(args.ground_truth)
    report = fit(points)
    report["additivity_max_abs_difference_cycles"] = check(points, report)
    report["metric"] = METRIC
    report["source"] = "data_movement.yaml, test 'DRAM Interleaved Packet Sizes', whole-tile transactions"
    for chip, fields in sorted(report.items()):
        if isinstance(fields, dict):
            for field, f in fields.items():
                print(f"{chip} dram.{field} = {f['value']} cycles on {f['points']} points ({f['sweeps']} sweeps): "
                      f"training {f['train_geomean_error']:.1%}, leave-one-sweep-out CV {f['cv_geomean_error']:.1%}")
    print(f"additivity check: {report['additivity_max_abs_difference_cycles']:.3g} cycles")
    REPORT.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(f"wrote {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
