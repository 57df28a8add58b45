"""`loom bench --baseline default|tuned|both` and `loom bench FILE.py --shapes`: which columns the
CSV and the table carry, and a user's own kernel file compared with TTNN only where TTNN has it."""

from __future__ import annotations

import csv
import json

from typer.testing import CliRunner

from loom.bench.rows import csv_columns
from loom.bench.user_kernels import baseline_kind, parse_shapes
from loom.cli import app
from loom.kernel_file import load_kernel_file
from tests.conftest import EXAMPLES

runner = CliRunner()
TUNED = ["ttnn_tuned_sim_cycles", "speedup_vs_ttnn_tuned"]
DEFAULT = ["ttnn_sim_cycles", "speedup_vs_ttnn"]


def _csv(path):
    with path.open() as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def test_default_keeps_the_columns_it_always_wrote():
    columns = csv_columns(("default",))
    assert all(c in columns for c in DEFAULT) and not any(c in columns for c in TUNED)
    assert not any(c in csv_columns(("tuned",)) for c in DEFAULT)


def test_baseline_both_writes_both_columns(tmp_path):
    result = runner.invoke(app, ["bench", "gemm", "--shapes", "M=256,N=256,K=256", "--baseline", "both",
                                 "--jobs", "1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    header, rows = _csv(tmp_path / "matmul_wormhole_n150.csv")
    assert all(c in header for c in DEFAULT + TUNED) and len(rows) == 1
    row = rows[0]
    assert all(float(row[c]) > 0 for c in DEFAULT + TUNED)
    assert "TTNN default: " in row["note"] and " | TTNN hand-tuned: GEMM_FLOPS report test rule" in row["note"]
    assert "speedup vs TTNN default" in result.output and "speedup vs TTNN hand-tuned" in result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["geomean_speedup_vs_ttnn"] > 0 and summary["geomean_speedup_vs_ttnn_tuned"] > 0
    for figure in ("speedup", "speedup_tuned", "model_vs_sim"):
        assert (tmp_path / f"matmul_wormhole_n150_{figure}.png").is_file()


def test_a_users_matmul_file_on_a_two_shape_list(tmp_path):
    # the example's kernel under another name: a user's matmul, compared with TTNN's matmul baselines
    kernel = tmp_path / "my_gemm.py"
    kernel.write_text((EXAMPLES / "matmul.py").read_text().replace("def matmul(", "def my_gemm("))
    result = runner.invoke(app, ["bench", str(kernel), "--shapes", "M=256,N=256,K=256;M=256,N=512,K=128",
                                 "--baseline", "tuned", "--jobs", "1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "compared with TTNN's matmul" in result.output
    header, rows = _csv(tmp_path / "my_gemm_wormhole_n150.csv")
    assert [r["shape"] for r in rows] == ["M=256,N=256,K=256", "M=256,N=512,K=128"]
    assert all(c in header for c in TUNED) and not any(c in header for c in DEFAULT)
    assert all(float(r["speedup_vs_ttnn_tuned"]) > 0 and r["kernel"] == "my_gemm" for r in rows)


def test_a_kernel_ttnn_has_no_baseline_for_reports_loom_alone(tmp_path):
    result = runner.invoke(app, ["bench", str(EXAMPLES / "softmax.py"), "--shapes", "M=64,N=256;M=128,N=256",
                                 "--jobs", "1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "no TTNN baseline for this kernel" in result.output
    _, rows = _csv(tmp_path / "softmax_wormhole_n150.csv")
    assert len(rows) == 2 and all(r["ttnn_sim_cycles"] == "" and float(r["loom_sim_cycles"]) > 0 for r in rows)
    assert all(r["note"] == "no TTNN baseline for this kernel" and r["model_error"] for r in rows)
    # its roofline: x read once and out written once (fp32), over Wormhole's 288 B/cycle
    assert [int(r["dram_bytes"]) for r in rows] == [2 * 64 * 256 * 4, 2 * 128 * 256 * 4]
    assert all(float(r["roofline_cycles"]) == int(r["dram_bytes"]) / 288 for r in rows)
    assert all(0 < float(r["of_roofline"]) <= 1 for r in rows) and "of roofline" in result.output


def test_which_kernels_have_a_ttnn_baseline():
    for kind in ("matmul", "flash_attention", "flash_decode"):
        assert baseline_kind(load_kernel_file(EXAMPLES / f"{kind}.py"))[0] == kind
    # same sizes as matmul, but a bias and a GELU: not TTNN's matmul
    assert baseline_kind(load_kernel_file(EXAMPLES / "matmul_bias_gelu.py"))[0] is None
    assert baseline_kind(load_kernel_file(EXAMPLES / "bmm.py"))[0] is None


def test_shapes_list_and_yaml(tmp_path):
    assert parse_shapes("M=256,N=256,K=256; M=512,N=128,K=64") == [{"M": 256, "N": 256, "K": 256},
                                                                   {"M": 512, "N": 128, "K": 64}]
    listed = tmp_path / "shapes.yaml"
    listed.write_text("- {M: 256, N: 256, K: 256}\n- {M: 512, N: 128, K: 64}\n")
    assert parse_shapes(str(listed)) == parse_shapes("M=256,N=256,K=256;M=512,N=128,K=64")


def test_a_kernel_file_needs_shapes_and_a_known_baseline_name():
    result = runner.invoke(app, ["bench", str(EXAMPLES / "softmax.py")])
    assert result.exit_code == 2 and "needs --shapes" in result.output
    result = runner.invoke(app, ["bench", "gemm", "--baseline", "best"])
    assert result.exit_code == 2 and "expected default, tuned or both" in result.output
