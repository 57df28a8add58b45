"""The paper's comparisons on loom.sim: Loom's top-1 schedule against TTNN's default choice.

For every shape: compile with the solver (top-1) and with TTNN's default configuration written as
a Schedule (`loom.baselines.schedules`), split both into per-core programs, simulate both
(timing only), and record the simulated speedup over TTNN, the model's error against the
simulator, and Loom's compile time. A baseline written for a padded shape (TTNN's uneven core
splits) runs moving only the real tiles; one written for a virtual grid runs row-major on the
real one. All figures are simulated, not measured on hardware. With an
output directory, `bench` writes the rows as CSV and draws them (`loom.bench.plots`).
"""

from __future__ import annotations

import csv
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from loom.arch import load_arch
from loom.baselines.schedules import TTNN
from loom.bench import plots
from loom.bench.rows import GEMM_K, GEMM_MN, Row
from loom.errors import LoomError
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run, tensor_shapes

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def shapes(kernel: str, arch: str) -> list[dict]:
    """The paper's shape sets (../shared/reference/paper_results.yaml)."""
    if kernel == "matmul":
        return [{"M": m, "N": n, "K": k} for m, n in GEMM_MN for k in GEMM_K]
    if kernel == "flash_attention":
        total = 16384 if arch == "wormhole_n150" else 15360
        batches = [1, 2, 4, 8, 16] + ([] if arch == "wormhole_n150" else [20])
        return [{"B": b, "H": 32, "L": total // b, "D": d} for d in (64, 128) for b in batches]
    return [{"B": 16, "H": h, "L": 4096, "D": d} for h in (32, 64, 128) for d in (64, 128)]


def measure(kernel: str, shape: dict, arch_name: str, jobs: int | None = None) -> Row:
    arch = load_arch(arch_name)
    source = load_kernel_file(EXAMPLES / f"{kernel}.py")
    args = source.example_args(shape, meta=True)
    flops = 2.0 * shape["M"] * shape["N"] * shape["K"] if kernel == "matmul" else None
    start = time.perf_counter()
    loom = compile_kernel(source.kernel, args, arch, shape=shape, jobs=jobs)
    seconds = time.perf_counter() - start
    loom_sim = run(loom, args, flops=flops).sim
    note, ttnn_cycles = "", None
    try:
        baseline, placed_on = _baseline(source, arch, shape, kernel)
        padded = baseline.schedule.shape != shape  # TTNN's padded last blocks: move only the real tiles
        ttnn_args = source.example_args(baseline.schedule.shape, meta=True) if padded else args
        ttnn_cycles = run(baseline, ttnn_args, flops=flops, valid=tensor_shapes(loom) if padded else None,
                          placed_on=placed_on).sim.cycles
        note = "; ".join(baseline.schedule.notes[1:])
    except LoomError as err:
        note = f"no TTNN baseline: {err.message}"
    best = loom.ranked[0]
    return Row(kernel, arch_name, ",".join(f"{k}={v}" for k, v in shape.items()), best.name,
               ",".join(f"{k}={v}" for k, v in loom.schedule.block_sizes.items()), best.cycles, loom_sim.cycles,
               ttnn_cycles, ttnn_cycles / loom_sim.cycles if ttnn_cycles else None,
               (best.cycles - loom_sim.cycles) / loom_sim.cycles, seconds, note)


def _baseline(source, arch, shape, kernel):
    """TTNN's choice compiled through Loom (at the padded shape its schedule names, if any, and
    from the baseline's own kernel when it has one: TTNN's GEMM partials format). Returns the
    compilation and the real architecture to run it on when it was compiled for a virtual grid
    (`loom.baselines.schedules.Baseline`), else None."""
    baseline = TTNN[kernel](shape, arch)
    schedule = baseline.schedule
    args = source.example_args(schedule.shape, meta=True)
    compiled = compile_kernel(baseline.kernel or source.kernel, args, baseline.arch, shape=schedule.shape,
                              schedule=schedule)
    return compiled, baseline.placed_on


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values)) if values else float("nan")


def summarize(rows: list[Row]) -> dict:
    speedups = [r.speedup_vs_ttnn for r in rows if r.speedup_vs_ttnn]
    errors = [abs(r.model_error) for r in rows]
    return {
        "shapes": len(rows),
        "geomean_speedup_vs_ttnn": geomean(speedups),
        "min_speedup": min(speedups, default=float("nan")),
        "max_speedup": max(speedups, default=float("nan")),
        "geomean_abs_model_error": geomean([max(e, 1e-4) for e in errors]),
        "median_compile_seconds": statistics.median([r.compile_seconds for r in rows]) if rows else float("nan"),
    }


def bench(kernel: str, arch: str, *, limit: int | None = None, jobs: int | None = None, out_dir: Path | None = None,
          progress: Callable[[int, int, Row], None] | None = None) -> tuple[list[Row], dict]:
    cases = shapes(kernel, arch)[:limit] if limit else shapes(kernel, arch)
    rows = []
    for i, shape in enumerate(cases, 1):
        row = measure(kernel, shape, arch, jobs)
        rows.append(row)
        if progress:
            progress(i, len(cases), row)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        csv_path, *_ = output_files(kernel, arch, out_dir)
        with csv_path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(asdict(rows[0])))
            writer.writeheader()
            writer.writerows(asdict(r) for r in rows)
        plots.bench_figures(rows, out_dir, clock_ghz=load_arch(arch).clock_ghz)
    return rows, summarize(rows)


def output_files(kernel: str, arch: str, out_dir: Path) -> list[Path]:
    """What `bench(kernel, arch, out_dir=out_dir)` writes: the rows as CSV, then its figures."""
    return [out_dir / f"{kernel}_{arch}.csv", *(plots.figure_path(out_dir, kernel, arch, what)
                                                for what in plots.FIGURES)]
