"""Fitted constants: every YAML value marked `fitted:` is the value the fit script's stored report
holds (benchmarks/fit_sim.py writes benchmarks/results/fit_sim.json; rerun it to refit): the unpacker's
cycles per tile of each format and each core's kernel setup."""

from __future__ import annotations

import json
import re

import pytest

from loom.arch import load_arch
from tests.conftest import ARCH_DIR_FOR_TESTS, ROOT

REPORT = json.loads((ROOT / "benchmarks" / "results" / "fit_sim.json").read_text())
# A chip's descriptions share its fit (the 11 x 10 Blackhole is the same silicon as the 13 x 10).
FITTED_FROM = {"wormhole_n150": "wormhole_n150", "blackhole_p150": "blackhole_p150",
               "blackhole_p150_11x10": "blackhole_p150"}


@pytest.mark.parametrize("arch", sorted(FITTED_FROM))
def test_unpack_costs_are_the_fit_reports_values_and_say_so(arch):
    fit = REPORT[FITTED_FROM[arch]]["unpack"]
    target = load_arch(arch)
    text = (ARCH_DIR_FOR_TESTS / f"{arch}.yaml").read_text()
    section = text[text.index("\nunpack:"):text.index("\npack:")]
    for fmt, entry in fit.items():
        assert target.unpack.cycles_per_tile[fmt] == entry["unpack_cycles_per_tile"], (arch, fmt)
        line = re.search(rf"^\s+{fmt}:.*$", section, re.M).group(0)
        assert "fitted: benchmarks/fit_sim.py" in line, line


@pytest.mark.parametrize("arch", sorted(FITTED_FROM))
def test_kernel_setup_is_the_fit_reports_value_and_says_so(arch):
    fit = REPORT[FITTED_FROM[arch]]["kernel_setup"]
    assert load_arch(arch).kernel_setup_cycles == fit["kernel_setup_cycles"]
    line = re.search(r"^kernel_setup_cycles:.*$", (ARCH_DIR_FOR_TESTS / f"{arch}.yaml").read_text(), re.M).group(0)
    assert "fitted: benchmarks/fit_sim.py" in line, line


def test_the_report_has_cross_validation_beside_training_error():
    for chip in ("wormhole_n150", "blackhole_p150"):
        for entry in [*REPORT[chip]["unpack"].values(), REPORT[chip]["kernel_setup"]]:
            assert entry["points"] > 0 and 0 <= entry["train_geomean_error"] < 1 and 0 <= entry["cv_geomean_error"] < 1
