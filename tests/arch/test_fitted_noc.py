"""DRAM latencies fitted by benchmarks/fit_noc.py: the YAMLs hold the stored report's values and say
so, the report's choice is reproduced from its own points, and a few of its points still simulate to
the latency-free cycles it stored (else the simulator changed since the fit: rerun the script)."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest

from loom.arch import load_arch
from loom.calibrate.data_movement import packets_program
from loom.sim import simulate
from tests.conftest import ARCH_DIR_FOR_TESTS, ROOT

SCRIPT = ROOT / "benchmarks" / "fit_noc.py"
REPORT = json.loads((ROOT / "benchmarks" / "results" / "fit_noc.json").read_text())
FITTED_FROM = {"wormhole_n150": "wormhole_n150", "blackhole_p150": "blackhole_p150",
               "blackhole_p150_11x10": "blackhole_p150"}
FIELDS = ("read_latency_cycles", "write_latency_cycles")


def _fit_module():
    spec = importlib.util.spec_from_file_location("fit_noc", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("arch", sorted(FITTED_FROM))
def test_dram_latencies_are_the_fit_reports_values_and_say_so(arch):
    fit = REPORT[FITTED_FROM[arch]]
    target = load_arch(arch)
    text = (ARCH_DIR_FOR_TESTS / f"{arch}.yaml").read_text()
    for field in FIELDS:
        assert getattr(target.dram, field) == fit[field]["value"], (arch, field)
        line = re.search(rf"^\s+{field}:.*$", text, re.M).group(0)
        assert "fitted: benchmarks/fit_noc.py" in line and f"{fit[field]['points']} points" in line, line


def test_the_fit_is_reproduced_from_the_reports_points_with_cross_validation():
    fit_noc = _fit_module()
    points = []
    for chip in ("wormhole_n150", "blackhole_p150"):
        for field in FIELDS:
            points += [dict(p, chip=chip, read=field == FIELDS[0]) for p in REPORT[chip][field]["data"]]
    refit = fit_noc.fit(points)
    for chip in ("wormhole_n150", "blackhole_p150"):
        for field in FIELDS:
            stored, again = REPORT[chip][field], refit[chip][field]
            assert again["value"] == stored["value"], (chip, field)
            assert again["cv_geomean_error"] == stored["cv_geomean_error"], (chip, field)
            assert stored["sweeps"] == 5 and 0 <= stored["train_geomean_error"] <= stored["cv_geomean_error"] < 1


@pytest.mark.parametrize("chip,field", [("wormhole_n150", "read_latency_cycles"),
                                        ("blackhole_p150", "write_latency_cycles")])
def test_a_few_report_points_still_simulate_to_their_stored_latency_free_cycles(chip, field):
    fit_noc = _fit_module()
    for p in REPORT[chip][field]["data"][::12]:
        arch = fit_noc.zero_latency(p["arch"])
        tiles = p["bytes"] // arch.dtypes.tile_bytes["bfloat16"]
        cycles = simulate(packets_program(arch, field == FIELDS[0], tiles, p["count"]), arch).program_cycles
        assert cycles == pytest.approx(p["base"], rel=1e-9), p["id"]
