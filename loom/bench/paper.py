"""The paper's comparisons on loom.sim: Loom's top-1 schedule against TTNN's default choice and
TTNN hand-tuned.

For every shape: compile with the solver (top-1) and with each baseline's configurations written
as Schedules (`loom.baselines.schedules`, `loom.baselines.tuned_schedules`; hand-tuned sweeps
several and keeps the best simulated), split them into per-core programs, simulate them
(timing only), and record the simulated speedup over each baseline, the model's error against the
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
from loom.baselines.schedules import Baseline
from loom.baselines.tuned_schedules import candidates, keep_best
from loom.bench import plots
from loom.bench.roofline import dram_bytes, roofline_cycles
from loom.bench.rows import BASELINE_LABELS, GEMM_K, GEMM_MN, Row, csv_columns
from loom.errors import LoomError
from loom.kernel_file import KernelFile, load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run, tensor_shapes

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def shapes(kernel: str, arch: str) -> list[dict]:
    """The paper's shape sets (../shared/reference/paper_results.yaml); for causal attention, the shapes of
    the published causal SDPA rows (tt_transformers and Qwen3-VL prefill: 32 / 8 heads, D 128, S 4096 and 8192)."""
    if kernel == "matmul":
        return [{"M": m, "N": n, "K": k} for m, n in GEMM_MN for k in GEMM_K]
    if kernel == "flash_attention":
        total = 16384 if arch == "wormhole_n150" else 15360
        batches = [1, 2, 4, 8, 16] + ([] if arch == "wormhole_n150" else [20])
        return [{"B": b, "H": 32, "L": total // b, "D": d} for d in (64, 128) for b in batches]
    if kernel == "causal_attention":  # the causal SDPA rows of ground_truth/sdpa_blackhole_p150.yaml Loom expresses
        return [{"B": 1, "H": 32, "KV": 8, "L": length, "D": 128} for length in (4096, 8192)]
    return [{"B": 16, "H": h, "L": 4096, "D": d} for h in (32, 64, 128) for d in (64, 128)]


def measure(kernel: str, shape: dict, arch_name: str, jobs: int | None = None, *,
            baselines: tuple[str, ...] = ("default",), source: KernelFile | None = None,
            kind: str | None = None) -> Row:
    """One shape: Loom's top-1 and each of `baselines` ("default", "tuned"), simulated.

    `source` is the kernel file (examples/`kernel`.py when None, whose TTNN kind is `kernel`);
    for another file, `kind` names the TTNN kernel its baselines are for (`user_kernels.baseline_kind`),
    None for none: the row then has Loom's simulated time and model error alone."""
    arch = load_arch(arch_name)
    if source is None:
        source, kind = load_kernel_file(EXAMPLES / f"{kernel}.py"), kernel
    args = source.example_args(shape, meta=True)
    flops = 2.0 * shape["M"] * shape["N"] * shape["K"] if kind == "matmul" else None
    start = time.perf_counter()
    loom = compile_kernel(source.kernel, args, arch, shape=shape, jobs=jobs)
    seconds = time.perf_counter() - start
    loom_run = run(loom, args, flops=flops)
    loom_sim = loom_run.sim
    real = tensor_shapes(loom)
    moved = dram_bytes(args, {t.name: (real[t.name], t.dtype) for t in loom_run.program.tensors if t.kind == "output"})
    roof = roofline_cycles(arch, moved, flops)
    measured, notes = {}, {}
    for which in baselines:
        if kind is None:
            measured[which], notes[which] = None, "no TTNN baseline for this kernel"
            continue
        try:
            best = keep_best(candidates(which, kind, shape, arch),
                             lambda b: _simulate(b, source, shape, args, flops, loom))
            measured[which] = best.cycles
            notes[which] = "; ".join(best.baseline.schedule.notes[1:]) + (
                f"; best of {best.simulated} simulated candidates" if best.simulated > 1 else "") + (
                f" ({len(best.refused)} refused: {best.refused[0]})" if best.refused else "")
        except LoomError as err:
            measured[which], notes[which] = None, f"no TTNN baseline: {err.message}"
    note = notes["default"] if tuple(baselines) == ("default",) else \
        " | ".join(f"{BASELINE_LABELS[b]}: {notes[b]}" for b in baselines)
    best = loom.ranked[0]
    speedups = {b: measured[b] / loom_sim.cycles if measured[b] else None for b in baselines}
    return Row(kernel, arch_name, ",".join(f"{k}={v}" for k, v in shape.items()), best.name,
               ",".join(f"{k}={v}" for k, v in loom.schedule.block_sizes.items()), best.cycles, loom_sim.cycles,
               measured.get("default"), speedups.get("default"), (best.cycles - loom_sim.cycles) / loom_sim.cycles,
               seconds, note, measured.get("tuned"), speedups.get("tuned"), moved, roof, roof / loom_sim.cycles)


def _simulate(baseline: Baseline, source: KernelFile, shape: dict, args: tuple, flops: float | None, loom) -> float:
    """A baseline's schedule compiled through Loom (at the padded shape it names, if any, and from
    its own kernel when it has one: TTNN's GEMM partials format) and simulated: on the real
    architecture when compiled for a virtual grid (`loom.baselines.schedules.Baseline`), moving
    only the real tiles when padded."""
    schedule = baseline.schedule
    padded = schedule.shape != shape
    ttnn_args = source.example_args(schedule.shape, meta=True) if padded else args
    compiled = compile_kernel(baseline.kernel or source.kernel, ttnn_args, baseline.arch, shape=schedule.shape,
                              schedule=schedule)
    return run(compiled, ttnn_args, flops=flops, valid=tensor_shapes(loom) if padded else None,
               placed_on=baseline.placed_on, engine_nocs=baseline.engine_nocs).sim.cycles


SUMMARY_KEYS = {"default": ("geomean_speedup_vs_ttnn", "min_speedup", "max_speedup"),
                "tuned": ("geomean_speedup_vs_ttnn_tuned", "min_speedup_vs_ttnn_tuned", "max_speedup_vs_ttnn_tuned")}
"""Per baseline, the summary's (geomean, min, max) speedup keys; TTNN default's as they always were."""


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values)) if values else float("nan")


def summarize(rows: list[Row], baselines: tuple[str, ...] = ("default",)) -> dict:
    errors = [abs(r.model_error) for r in rows]
    out = {
        "shapes": len(rows),
        "geomean_abs_model_error": geomean([max(e, 1e-4) for e in errors]),
        "median_compile_seconds": statistics.median([r.compile_seconds for r in rows]) if rows else float("nan"),
        "geomean_of_roofline": geomean([r.of_roofline for r in rows if r.of_roofline]),
    }
    for which in baselines:
        speedups = [r.speedup(which) for r in rows if r.speedup(which)]
        geo, low, high = SUMMARY_KEYS[which]
        out[geo] = geomean(speedups)
        out[low] = min(speedups, default=float("nan"))
        out[high] = max(speedups, default=float("nan"))
    return out


def bench(kernel: str, arch: str, *, limit: int | None = None, jobs: int | None = None, out_dir: Path | None = None,
          progress: Callable[[int, int, Row], None] | None = None, baselines: tuple[str, ...] = ("default",),
          cases: list[dict] | None = None, source: KernelFile | None = None,
          kind: str | None = None) -> tuple[list[Row], dict]:
    """`kernel`'s rows over the paper's shapes (or `cases`), against each of `baselines`; `source`
    and `kind` as `measure` takes them (a user's kernel file, which needs `cases`)."""
    cases = shapes(kernel, arch) if cases is None else cases
    cases = cases[:limit] if limit else cases
    rows = []
    for i, shape in enumerate(cases, 1):
        row = measure(kernel, shape, arch, jobs, baselines=baselines, source=source, kind=kind)
        rows.append(row)
        if progress:
            progress(i, len(cases), row)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        csv_path, *_ = output_files(kernel, arch, out_dir, baselines)
        with csv_path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=csv_columns(baselines), extrasaction="ignore")
            writer.writeheader()
            writer.writerows(asdict(r) for r in rows)
        plots.bench_figures(rows, out_dir, clock_ghz=load_arch(arch).clock_ghz, baselines=baselines)
    return rows, summarize(rows, baselines)


def output_files(kernel: str, arch: str, out_dir: Path, baselines: tuple[str, ...] = ("default",)) -> list[Path]:
    """What `bench(kernel, arch, out_dir=out_dir, baselines=baselines)` writes: the rows as CSV,
    then its figures."""
    return [out_dir / f"{kernel}_{arch}.csv", *(plots.figure_path(out_dir, kernel, arch, what)
                                                for what in plots.figures(baselines))]
