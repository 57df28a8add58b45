"""Compiled programs run in loom.sim and match torch (functional mode) on every architecture."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from loom.cli import app
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run
from tests.conftest import EXAMPLES

CASES = [
    ("matmul", {"M": 256, "N": 256, "K": 128}),
    ("flash_attention", {"B": 1, "H": 2, "L": 128, "D": 64}),
    ("flash_decode", {"B": 2, "H": 2, "L": 256, "D": 64}),
]


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
@pytest.mark.parametrize("name, shape", CASES)
def test_compiled_program_matches_torch(name, shape, arch):
    source = load_kernel_file(EXAMPLES / f"{name}.py")
    args = source.example_args(shape)
    compilation = compile_kernel(source.kernel, args, arch, shape=shape)
    outcome = run(compilation, args, reference=source.reference)
    assert outcome.check.ok, outcome.check
    assert outcome.sim.cycles > 0


def test_multicast_schedule_matches_torch_and_reads_less_dram():
    """A 2-D multicast GEMM (A along rows, B along columns) against the same mapping with unicast."""
    source = load_kernel_file(EXAMPLES / "matmul.py")
    shape = {"M": 256, "N": 256, "K": 128}
    args = source.example_args(shape)
    sizes = {"tile_m": 32, "tile_n": 32, "tile_k": 64}
    base = compile_kernel(source.kernel, args, "wormhole_n150", shape=shape, block_sizes=sizes, top_k=0)
    by_name = {r.name: r for r in base.ranked}
    mcast = next(n for n in by_name if n.startswith("x1x8_y8.mn") and "x:row" in n and "y:column" in n)
    uni = next(n for n in by_name if n.startswith("x1x8_y8.mn") and "x:unicast" in n and "y:unicast" in n)
    reads = {}
    for name in (mcast, uni):
        base.ranked = [by_name[name]]
        outcome = run(base, args, reference=source.reference)
        assert outcome.check.ok, (name, outcome.check)
        reads[name] = outcome.sim.dram_read_bytes_by_tensor["x"]
    assert reads[mcast] * 8 == pytest.approx(reads[uni])  # A is read once per row of 8 cores


def test_cli_run_check_and_trace(tmp_path):
    trace = tmp_path / "trace.json"
    result = CliRunner().invoke(app, ["run", "examples/matmul.py", "--shape", "M=256,N=256,K=128", "--check",
                                      "--trace", str(trace)])
    assert result.exit_code == 0, result.output
    assert "matches the torch reference" in result.stdout and "simulated" in result.stdout
    assert trace.read_text().startswith("{") or trace.read_text().startswith("[")


def test_rank_one_tensors_run_as_one_column_matrices():
    """`out[tile_n] = x[tile_n] * 2`: a rank-1 tensor indexed on its own is laid out N x 1 and matches torch."""
    from pathlib import Path

    source = load_kernel_file(Path(__file__).parent / "vector_kernel.py")
    args = source.example_args()
    outcome = run(compile_kernel(source.kernel, args, "wormhole_n150"), args, reference=source.reference)
    assert {t.name: t.vector for t in outcome.program.tensors} == {"x": "col", "out": "col"}
    assert outcome.check.ok, outcome.check


def test_oracle_regret_is_measured_by_simulation():
    from loom.bench.oracle import neighbourhood_regret, top_k_regret

    source = load_kernel_file(EXAMPLES / "matmul.py")
    shape = {"M": 256, "N": 256, "K": 128}
    args = source.example_args(shape, meta=True)
    top = top_k_regret(source.kernel, args, "wormhole_n150", shape, k=3)
    assert top.simulated == 3 and top.best_cycles <= top.chosen_cycles and top.regret >= 0
    near = neighbourhood_regret(source.kernel, args, "wormhole_n150", shape)
    assert near.simulated >= 2 and near.best_cycles <= near.chosen_cycles


def test_cli_bench_writes_csv_and_summary(tmp_path):
    import json

    result = CliRunner().invoke(app, ["bench", "flash_decode", "--limit", "1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["shapes"] == 1 and summary["geomean_speedup_vs_ttnn"] > 0
    assert (tmp_path / "flash_decode_wormhole_n150.csv").read_text().startswith("kernel,arch,shape")


def test_cli_bench_rejects_unknown_kernel():
    result = CliRunner().invoke(app, ["bench", "softmax"])
    assert result.exit_code == 2 and "expected gemm, flash_attention, flash_decode, causal_attention or a FILE.py" \
        in result.output


def test_tileloom_style_tuning_simulates_the_models_top_k():
    from loom.bench.oracle import tileloom_tuning

    source = load_kernel_file(EXAMPLES / "matmul.py")
    shape = {"M": 256, "N": 256, "K": 128}
    cycles, seconds, label = tileloom_tuning(source.kernel, source.example_args(shape, meta=True),
                                             "wormhole_n150", shape, k=2)
    assert cycles > 0 and seconds > 0 and "tile_m=" in label
