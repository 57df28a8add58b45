"""Benchmark figures (loom.bench.plots) and a short `bench` run that writes its CSV and plots."""

from __future__ import annotations

import csv

import pytest

from loom.bench import plots
from loom.bench.paper import bench, output_files
from loom.bench.rows import Row

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _is_png(path) -> bool:
    return path.is_file() and path.stat().st_size > 1000 and path.read_bytes()[:8] == PNG_MAGIC


def _row(kernel: str, shape: str, model: int, sim: float, ttnn: float | None) -> Row:
    note = "" if ttnn else "no TTNN baseline: test"
    return Row(kernel, "wormhole_n150", shape, "x8_y8.nm", "tile_m=128", model, sim, ttnn,
               ttnn / sim if ttnn else None, (model - sim) / sim, 1.0, note)


GEMM_ROWS = [
    _row("matmul", "M=256,N=256,K=256", 9000, 9500.0, 14000.0),
    _row("matmul", "M=2048,N=256,K=2048", 140000, 150000.0, None),  # no baseline: an "n/a" cell
    _row("matmul", "M=16384,N=16384,K=16384", 68000000, 71000000.0, 200000000.0),
]
DECODE_ROWS = [
    _row("flash_decode", "B=16,H=32,L=4096,D=64", 2180000, 2220000.0, 2225000.0),
    _row("flash_decode", "B=16,H=32,L=4096,D=128", 4300000, 4440000.0, None),
]


@pytest.mark.parametrize("rows", [GEMM_ROWS, DECODE_ROWS], ids=["gemm_heatmap", "decode_bars"])
def test_bench_figures_are_pngs_even_without_a_ttnn_baseline(rows, tmp_path):
    paths = plots.bench_figures(rows, tmp_path, clock_ghz=1.0)
    kernel = rows[0].kernel
    assert paths == [tmp_path / f"{kernel}_wormhole_n150_speedup.png",
                     tmp_path / f"{kernel}_wormhole_n150_model_vs_sim.png"]
    assert all(_is_png(p) for p in paths)


def test_model_vs_sim_falls_back_to_cycles_without_a_clock(tmp_path):
    assert _is_png(plots.model_vs_sim(GEMM_ROWS, tmp_path))


def test_speedup_figure_with_no_baseline_at_all(tmp_path):
    rows = [_row("matmul", "M=256,N=256,K=256", 9000, 9500.0, None)]
    assert _is_png(plots.speedup(rows, tmp_path))


def test_regret_box_plots(tmp_path):
    regrets = {"top-1 vs best of top-5": [0.0, 0.02, 0.07], "top-1 vs 3x3x3 neighbourhood": [0.0, 0.1, 0.03]}
    path = plots.regret(regrets, tmp_path, "wormhole_n150")
    assert path == tmp_path / "matmul_wormhole_n150_regret.png" and _is_png(path)


def test_plots_refuse_empty_rows(tmp_path):
    with pytest.raises(ValueError, match="no rows"):
        plots.speedup([], tmp_path)


def test_a_bench_run_on_a_two_shape_subset_writes_its_csv_and_plots(tmp_path):
    """The first two shapes of the paper's GEMM set (16K x 16K at K = 256 and 2K), compiled,
    simulated against TTNN's default and drawn."""
    rows, summary = bench("matmul", "wormhole_n150", limit=2, out_dir=tmp_path)
    csv_path, *figures = output_files("matmul", "wormhole_n150", tmp_path)
    with csv_path.open() as f:
        assert len(list(csv.DictReader(f))) == 2 == len(rows) == summary["shapes"]
    assert [p.name for p in figures] == ["matmul_wormhole_n150_speedup.png",
                                         "matmul_wormhole_n150_model_vs_sim.png"]
    assert all(_is_png(p) for p in figures)
