"""The `loom` CLI: lower prints IR and dumps it; user errors exit 2 with one message."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from loom.cli import app

runner = CliRunner()


@pytest.mark.parametrize(
    "kernel, shape",
    [("matmul", "M=2048,N=256,K=256"), ("flash_attention", "B=1,H=2,L=256,D=64"), ("flash_decode", "B=1,H=2,L=512")],
)
def test_lower_prints_symbolic_ir(kernel, shape, tmp_path):
    result = runner.invoke(app, ["lower", f"examples/{kernel}.py", "--shape", shape, "--dump-ir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "loom.sym @tile_" in result.stdout
    assert (tmp_path / "00_frontend.mlir").read_text().strip() == result.stdout.strip()
    for dump in ("01_dataflow.mlir", "02_concrete.mlir"):
        assert "loom.vb." in (tmp_path / dump).read_text()


def test_lower_gemm_names_all_three_tiles():
    result = runner.invoke(app, ["lower", "examples/matmul.py", "--shape", "M=2048,N=256,K=256"])
    for label in ("@tile_m", "@tile_n", "@tile_k"):
        assert f"loom.sym {label}" in result.stdout


def test_user_error_exits_2_without_traceback():
    result = runner.invoke(app, ["lower", "tests/bad_inputs/kernels/zero_size.py"])
    assert result.exit_code == 2
    assert "zero_size.py:9" in result.output and "Traceback" not in result.output


def test_unknown_arch_exits_2():
    result = runner.invoke(app, ["lower", "examples/matmul.py", "--arch", "nonesuch"])
    assert result.exit_code == 2 and "nonesuch" in result.output


def test_archs_lists_all_descriptions():
    result = runner.invoke(app, ["archs"])
    assert result.exit_code == 0, result.output
    for name in ("wormhole_n150", "blackhole_p150", "ring32"):
        assert name in result.output


def test_summary_lists_buffers_and_footprint():
    result = runner.invoke(app, ["lower", "examples/matmul.py", "--shape", "M=256,N=256,K=256", "--summary"])
    assert result.exit_code == 0, result.output
    for text in ("x_tile", "tile_m x tile_k bf16", "load x@matmul.py:19", "L1 footprint (bytes)", "2*tile_m*tile_k"):
        assert text in result.stdout


def test_unknown_stage_exits_2():
    result = runner.invoke(app, ["lower", "examples/matmul.py", "--stage", "bogus"])
    assert result.exit_code == 2 and "frontend, dataflow, concrete" in result.output
