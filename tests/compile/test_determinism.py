"""Determinism: the same `loom compile --json --dump-ir` gives byte-identical Schedule JSON and IR
dumps across runs (also in a fresh process with another hash seed) and with --jobs 1 vs --jobs 2.
Only the compile timings (`compile_seconds`) may differ."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from loom.cli import app
from tests.conftest import ROOT

CASES = {
    "matmul": "M=512,N=256,K=256",
    "flash_attention": "B=1,H=2,L=128,D=64",
    "flash_decode": "B=2,H=2,L=256,D=64",
}


def command(kernel: str, dump: Path, jobs: int) -> list[str]:
    return ["compile", f"examples/{kernel}.py", "--shape", CASES[kernel], "--json", "--dump-ir", str(dump),
            "--jobs", str(jobs)]


def outputs(stdout: str, dump: Path) -> dict[str, bytes]:
    """The JSON without its timings, and every dumped file, by name."""
    data = json.loads(stdout)
    assert data.pop("compile_seconds")
    files = {str(p.relative_to(dump)): p.read_bytes() for p in sorted(dump.rglob("*")) if p.is_file()}
    assert "schedule.json" in files and "04_selected.mlir" in files and len(files) > 6
    return {"stdout": json.dumps(data, sort_keys=True).encode(), **files}


def in_process(kernel: str, dump: Path, jobs: int) -> dict[str, bytes]:
    result = CliRunner().invoke(app, command(kernel, dump, jobs))
    assert result.exit_code == 0, result.output
    return outputs(result.stdout, dump)


def assert_same(a: dict[str, bytes], b: dict[str, bytes]) -> None:
    assert sorted(a) == sorted(b)
    differ = [name for name in a if a[name] != b[name]]
    assert not differ, f"differ: {differ}"


@pytest.mark.parametrize("kernel", list(CASES))
def test_jobs_1_and_2_give_identical_outputs(kernel, tmp_path):
    assert_same(in_process(kernel, tmp_path / "jobs1", 1), in_process(kernel, tmp_path / "jobs2", 2))


def test_a_second_run_in_a_fresh_process_with_another_hash_seed_gives_identical_outputs(tmp_path):
    kernel = "matmul"
    here = in_process(kernel, tmp_path / "here", 2)
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    proc = subprocess.run([sys.executable, "-m", "loom.cli", *command(kernel, tmp_path / "fresh", 1)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert_same(here, outputs(proc.stdout, tmp_path / "fresh"))
