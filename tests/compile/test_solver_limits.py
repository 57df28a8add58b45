"""Solver limits: a time limit per candidate (a cut-off solve is reported as "best found, not proven
optimal" with its gap) and a total time limit (candidates left unsolved are reported, never dropped)."""

from __future__ import annotations

import json
import time

import pytest
from typer.testing import CliRunner

import loom.solve.cpsat as cpsat
from loom.cli import app
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.solve.select import TOTAL_LIMIT_REACHED
from tests.conftest import EXAMPLES

runner = CliRunner()
BIG = "M=4096,N=4096,K=4096"


def test_cut_off_solve_reports_best_found_with_gap():
    """A tiny per-candidate limit on a big GEMM: the chosen candidate's solve is cut off."""
    for limit in ("0.005", "0.01", "0.02", "0.05", "0.1"):  # the smallest limit that finds any solution
        result = runner.invoke(app, ["compile", "examples/matmul.py", "--shape", BIG, "--time-limit", limit])
        if result.exit_code == 0:
            break
        assert result.exit_code == 2 and "--time-limit" in result.output, result.output
    assert result.exit_code == 0, result.output
    line = next(text for text in result.stdout.splitlines() if "modelled" in text)
    assert "best found, not proven optimal (gap " in line, line
    gap = float(line.split("(gap ")[1].split("%")[0])
    assert 0 < gap <= 100


def slow_solve(monkeypatch, seconds: float) -> None:
    original = cpsat.solve

    def solve(*args, **kwargs):
        time.sleep(seconds)
        return original(*args, **kwargs)

    monkeypatch.setattr(cpsat, "solve", solve)


@pytest.mark.parametrize("jobs", [1, 2])
def test_total_time_limit_reports_every_unsolved_candidate(jobs, monkeypatch):
    slow_solve(monkeypatch, 0.1)  # every candidate takes at least 0.1 s: 0.35 s cannot solve them all
    source = load_kernel_file(EXAMPLES / "matmul.py")
    shape = {"M": 512, "N": 512, "K": 256}
    result = compile_kernel(source.kernel, source.example_args(shape), "wormhole_n150", shape=shape, top_k=0,
                            jobs=jobs, total_time_limit_s=0.35)
    names = {c.name for c in result.candidates.candidates}
    ranked, unsolved = {r.name for r in result.ranked}, [r for r in result.rejected if r.kind == "not solved"]
    assert ranked and unsolved
    assert all(r.reason == TOTAL_LIMIT_REACHED for r in unsolved)
    assert ranked | {r.name for r in result.rejected} == names  # no candidate is silently dropped
    assert len(result.ranked) + len(result.rejected) == len(names)


def test_total_time_limit_in_the_report_and_json(monkeypatch):
    slow_solve(monkeypatch, 0.1)
    args = ["compile", "examples/matmul.py", "--shape", "M=512,N=512,K=256", "--total-time-limit", "0.35"]
    report = runner.invoke(app, args)
    assert report.exit_code == 0, report.output
    assert "not solved (" in report.stdout and "total time limit reached" in report.stdout
    assert "best of the solved candidates only" in report.stdout
    data = json.loads(runner.invoke(app, args + ["--json"]).stdout)
    assert data["candidates"]["not_solved"] > 0
    assert data["candidates"]["not_solved"] + data["candidates"]["infeasible"] + len(data["ranked"]) <= \
        data["candidates"]["retained"]


def test_without_a_total_limit_every_candidate_is_solved():
    source = load_kernel_file(EXAMPLES / "matmul.py")
    shape = {"M": 256, "N": 256, "K": 128}
    result = compile_kernel(source.kernel, source.example_args(shape), "wormhole_n150", shape=shape, top_k=0)
    assert not [r for r in result.rejected if r.kind == "not solved"]
    assert len(result.ranked) + len(result.rejected) == len(result.candidates.candidates)
