"""`loom calibrate`: every shared ground-truth file parses, every point it does not compare is
named with a reason, a malformed file exits 2 naming the field path, and unknown chips, kernels
and fields are skips, not crashes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from loom import cost
from loom.arch import load_arch
from loom.calibrate import CalibrationFileError, calibrate, load_points
from loom.calibrate.common import Plan, Row
from loom.calibrate.run import plan_point
from loom.cli import app
from tests.conftest import ROOT

GROUND_TRUTH = ROOT.parent / "shared" / "reference" / "ground_truth"
FILES = ["gemm_wormhole_n150.yaml", "gemm_blackhole_p150.yaml", "sdpa_blackhole_p150.yaml", "data_movement.yaml"]
SAMPLE = {"sdpa_blackhole_p150.yaml": 0}
"""Points simulated per file (the smallest expressible ones; 6 unless listed), to keep the test fast:
an SDPA row compiles a flash-attention kernel at full size (about 20 s), so none is simulated here."""

needs_files = pytest.mark.skipif(not GROUND_TRUTH.is_dir(), reason="shared ground-truth files not present")


@needs_files
@pytest.mark.parametrize("name", FILES)
def test_every_point_is_planned_or_skipped_with_a_reason(name):
    points = load_points(GROUND_TRUTH / name)
    assert points, name
    planned = []
    for p in points:
        item = plan_point(p)
        if isinstance(item, Row):
            assert item.skipped and item.id == p.id, item
            assert not item.skipped.startswith("internal error"), (p.id, item.skipped, item.note)
        else:
            assert isinstance(item, Plan) and item.specs, p.id
            planned.append((p, item))
    if name.startswith("gemm"):
        assert len(planned) > 0.8 * len(points)  # nearly every GEMM point is expressible
    # Simulate a small sample: the cheapest planned points, plus some skipped ones.
    planned.sort(key=lambda pi: sum(getattr(s.args[0], "flops", 0) or 0 for s in pi[1].specs))
    sample = [p for p, _ in planned[:SAMPLE.get(name, 6)]] + [p for p in points if isinstance(plan_point(p), Row)][:3]
    rows = calibrate(sample)
    assert [r.id for r in rows] == [p.id for p in sample]
    for r in rows:
        if r.skipped is None:
            assert r.metric and r.measured > 0 and r.predicted > 0, r
        else:
            assert r.skipped.strip(), r


def _file(tmp_path: Path, points, **top) -> Path:
    path = tmp_path / "points.yaml"
    path.write_text(yaml.safe_dump({"points": points, **top}, sort_keys=False))
    return path


GEMM = {"id": "x1", "chip": "wormhole_n150", "kernel": "gemm",
        "shape": {"M": 512, "K": 512, "N": 512, "batch": 1},
        "dtype": {"in0": "bf16", "in1": "bf16"}, "fidelity": "HiFi2", "use_trace": False,
        "config": {"type": "ttnn_default", "grid": "(8, 8)"},
        "measured": [{"metric": "device_based_utilization", "value": 19.0, "unit": "%"}]}


def test_a_malformed_file_exits_2_naming_the_field_path(tmp_path):
    bad = dict(GEMM, measured=[{"value": 1.0, "unit": "%"}])
    path = _file(tmp_path, [GEMM, bad | {"id": "x2"}])
    result = CliRunner().invoke(app, ["calibrate", str(path)])
    assert result.exit_code == 2, result.output
    assert "points.1.measured.0" in result.output and "metric" in result.output
    with pytest.raises(CalibrationFileError, match=r"points\.1\.measured\.0"):
        load_points(path)


@pytest.mark.parametrize("broken, where", [
    ({"points": "none"}, "points"),
    ({"points": [{"chip": "wormhole_n150", "kernel": "gemm", "measured": []}]}, "points.0"),
    ({"points": [dict(GEMM, measured="fast")]}, "points.0.measured"),
    ({"points": [dict(GEMM, shape=[1, 2])]}, "points.0.shape"),
])
def test_malformed_structure_names_its_path(tmp_path, broken, where):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(broken))
    with pytest.raises(CalibrationFileError) as info:
        load_points(path)
    assert f"{path}: {where}" in str(info.value)


def test_unknown_chips_kernels_and_fields_are_named_skips(tmp_path):
    points = [GEMM,
              dict(GEMM, id="x2", chip="grayskull_e150"),
              dict(GEMM, id="x3", kernel="conv2d"),
              dict(GEMM, id="x4", config={"type": "ttnn_default", "grid": "(8, 8)", "swizzle": True}),
              dict(GEMM, id="x5", dtype={"in0": "fp8_e4m3", "in1": "fp8_e4m3"}),
              dict(GEMM, id="x6", config={"type": "ttnn_default", "grid": "(9, 9)"})]
    result = CliRunner().invoke(app, ["calibrate", str(_file(tmp_path, points)), "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["id"]: r for r in json.loads(result.stdout)["rows"]}
    assert rows["x1"]["skipped"] is None and rows["x1"]["predicted"] > 0
    assert rows["x1"]["metric"] == "device_time_us"
    assert rows["x2"]["skipped"] == "unknown chip 'grayskull_e150'"
    assert rows["x3"]["skipped"] == "unknown kernel 'conv2d'"
    assert rows["x4"]["skipped"] == "unknown field config.swizzle"
    assert rows["x5"]["skipped"] == "unknown dtype 'fp8_e4m3'"
    assert "9x9 grid" in rows["x6"]["skipped"]
    for r in rows.values():
        assert set(r) >= {"id", "chip", "kernel", "metric", "measured", "predicted", "skipped"}


def test_device_time_is_ideal_cycles_over_utilisation(tmp_path):
    rows = calibrate(load_points(_file(tmp_path, [GEMM])))
    # 16^3 tile products x 32 cycles (HiFi2) / 64 cores / 0.19 at 1 GHz
    assert rows[0].measured == pytest.approx(16 ** 3 * 32 / 64 / 0.19 / 1e3)


def test_text_output_has_a_summary_and_skip_counts(tmp_path):
    points = [GEMM, dict(GEMM, id="x2", chip="grayskull_e150")]
    result = CliRunner().invoke(app, ["calibrate", str(_file(tmp_path, points)), "--kernel", "gemm"])
    assert result.exit_code == 0, result.output
    assert "geomean|e|" in result.stdout and "1 skipped" in result.stdout
    assert "unknown chip 'grayskull_e150'" in result.stdout


def test_ttnn_1d_multicast_program_computes_the_product():
    """The 1-D multicast-of-A program TTNN's default picks for wide shapes matches torch."""
    import numpy as np
    import torch

    from loom.baselines.ttnn_matmul import matmul_default_config
    from loom.calibrate.gemm1d import gemm_1d_in0_program
    from loom.sim import simulate
    from loom.sim.gemm_workload import GemmConfig

    arch = load_arch("wormhole_n150")
    M, K, N = 64, 128, 1024  # wide: TTNN multicasts A to 32 cores, one N tile each
    c = matmul_default_config(M, K, N, arch=arch, dtype="bfloat16")
    assert c.kind == "mcast_1d_in0" and c.per_core_N == 1
    cfg = GemmConfig(M, K, N, (32, 1), c.per_core_M, c.per_core_N, c.in0_block_w, c.out_block_h, c.out_block_w,
                     (c.out_subblock_h, c.out_subblock_w), "bfloat16", "float32", "float32", c.fidelity)
    a, b = torch.randn(M, K).bfloat16().float(), torch.randn(K, N).bfloat16().float()
    result = simulate(gemm_1d_in0_program(arch, cfg, (8, 4)), arch, functional=True, inputs={"A": a, "B": b})
    np.testing.assert_allclose(result.outputs["C"], (a @ b).numpy(), rtol=1e-3, atol=1e-3)


@needs_files
def test_causal_sdpa_rows_use_the_causal_kernel_where_loom_expresses_them():
    """Gemma-4's causal 4/1-head row (Q128/K128, "HiFi4 + FP32": its stated fidelity) and Qwen3-VL's legacy
    32/8-head row (Q128/K512: a key chunk longer than the query chunk; no fidelity stated) are planned on the
    causal example with TTNN's causal split."""
    points = {p.id: p for p in load_points(GROUND_TRUTH / "sdpa_blackhole_p150.yaml")}
    plan = plan_point(points["p01612"])
    assert isinstance(plan, Plan)
    assert [(s.kind, s.args) for s in plan.specs] == [("sdpa_causal", (1, 4, 1, 4096, 512, 128, 128, "HiFi4"))]
    wide = plan_point(points["p01564"])
    assert isinstance(wide, Plan)
    assert [(s.kind, s.args) for s in wide.specs] == [("sdpa_causal", (1, 32, 8, 4096, 128, 128, 512, ""))]


@needs_files
def test_joint_sdpa_rows_run_as_one_sequence_where_neither_part_is_padded():
    """FLUX.2's joint row (N4608 + an empty joint part, Q128/K512) is non-causal attention over 4608 tokens;
    Flux's (N4096 + L512, Q256/K512) over 4608 as well; qwen_image's L128 is not whole Q512 / K256 chunks
    (TTNN pads each part apart): a named skip."""
    points = {p.id: p for p in load_points(GROUND_TRUTH / "sdpa_blackhole_p150.yaml")}
    assert [(s.kind, s.args) for s in plan_point(points["p01610"]).specs] == [
        ("sdpa", (1, 6, 4608, 128, 128, 512, ""))]
    assert [(s.kind, s.args) for s in plan_point(points["p01576"]).specs] == [
        ("sdpa", (1, 24, 4608, 128, 256, 512, ""))]
    padded = plan_point(points["p01570"])
    assert not isinstance(padded, Plan) and "not whole Q / K chunks" in padded.skipped


def test_a_stated_fidelity_prices_the_matrix_engine():
    from loom.calibrate.sdpa import with_fidelity

    arch = load_arch("blackhole_p150")
    slow = with_fidelity(arch, "HiFi4")
    assert set(slow.matrix_engine.default_fidelity.values()) == {"HiFi4"}
    assert cost.default_fidelity(slow, "bfloat16") == "HiFi4" and cost.default_fidelity(arch, "bfloat16") != "HiFi4"
