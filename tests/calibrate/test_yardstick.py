"""The yardstick's standing printed beside every simulated figure (`loom.calibrate.yardstick`): grouped from
`loom calibrate` rows on device time, stored in yardstick.json, named per kind of kernel."""

from __future__ import annotations

import json
import math

import pytest

from loom.calibrate import yardstick
from loom.calibrate.yardstick import STANDING, kind_of, standing_from_rows, yardstick_line
from loom.kernel_file import load_kernel_file
from loom.pipeline import lower
from tests.conftest import EXAMPLES, ROOT


def _row(arch, kernel, measured, predicted, metric="device_time_us", skipped=None):
    return {"arch": arch, "kernel": kernel, "metric": metric, "measured": measured, "predicted": predicted,
            "skipped": skipped}


def test_device_time_rows_are_grouped_per_architecture_and_kind():
    rows = [_row("wormhole_n150", "gemm", 10.0, 11.0), _row("wormhole_n150", "gemm", 10.0, 8.0),
            _row("wormhole_n150", "gemm", 10.0, 30.0, metric="host_time_us"),  # includes dispatch: left out
            _row("wormhole_n150", "gemm", 10.0, None, skipped="unknown field x"),
            _row("blackhole_p150", "sdpa_prefill", 4.0, 2.0, metric="op_time_ms")]
    classes = {(c["arch"], c["kind"]): c for c in standing_from_rows(rows)}
    assert set(classes) == {("wormhole_n150", "gemm"), ("blackhole_p150", "attention")}
    gemm = classes["wormhole_n150", "gemm"]
    assert gemm["n"] == 2 and gemm["geomean_abs_error"] == pytest.approx(math.sqrt(0.1 * 0.2))
    assert gemm["signed_mean_error"] == pytest.approx(-0.05)
    assert (gemm["min_error"], gemm["max_error"]) == pytest.approx((-0.2, 0.1))


def test_the_stored_standing_is_the_stored_calibration_rows_grouped():
    standing = json.loads(STANDING.read_text())
    tag = standing["measured"].split("calibration_")[1].removesuffix("_*")
    files = sorted((ROOT / "benchmarks" / "results").glob(f"calibration_{tag}_*.json"))
    assert len(files) == 4, files  # both GEMM files, SDPA and data movement
    rows = [row for path in files for row in json.loads(path.read_text())["rows"]]
    derived = standing_from_rows(rows)
    assert [(c["arch"], c["kind"], c["n"]) for c in standing["classes"]] == [(c["arch"], c["kind"], c["n"])
                                                                               for c in derived]
    for stored, again in zip(standing["classes"], derived):
        assert stored == pytest.approx(again)


def test_a_line_puts_the_kernels_kind_first_and_says_where_none_is_published(monkeypatch):
    classes = [{"arch": "blackhole_p150", "kind": "attention", "n": 7, "geomean_abs_error": 0.5,
                "signed_mean_error": -0.5, "min_error": -0.65, "max_error": -0.38},
               {"arch": "blackhole_p150_11x10", "kind": "data_movement", "n": 69, "geomean_abs_error": 0.05,
                "signed_mean_error": -0.06, "min_error": -0.35, "max_error": 0.28},
               {"arch": "wormhole_n150", "kind": "gemm", "n": 372, "geomean_abs_error": 0.036,
                "signed_mean_error": -0.01, "min_error": -0.29, "max_error": 0.19}]
    monkeypatch.setattr(yardstick, "_standing", lambda: {"classes": classes, "measured": "a test"})
    line = yardstick_line("blackhole_p150", "data_movement")
    assert line.index("data movement 5.0%") < line.index("attention (SDPA) 50.0%")
    assert "n 69, signed -6% (-35% to +28%) on blackhole_p150_11x10" in line  # the chip's other grid
    assert "GEMM none published" in line
    on_wormhole = yardstick_line("wormhole_n150", "attention")
    assert on_wormhole.startswith("loom.sim vs published wormhole_n150 device times: attention (SDPA) none "
                                  "published (on blackhole_p150: 50.0% geomean |error|")
    assert "unchecked" in yardstick_line("ring32", "gemm")


@pytest.mark.parametrize(("example", "kind"), [("matmul", "gemm"), ("flash_attention", "attention"),
                                               ("softmax", "data_movement")])
def test_a_kernel_is_held_against_the_nearest_kind_of_measurement(example, kind):
    source = load_kernel_file(EXAMPLES / f"{example}.py")
    lowering = lower(source.kernel, source.example_args(meta=True), stage="concrete")
    assert kind_of(lowering.stages["concrete"]) == kind
