"""Benchmark rows as PNG figures, in the paper's layouts (Figs. 9-12). Every figure is simulated on
loom.sim and says so in its title.

- speedup (speedup_tuned): GEMM as a heatmap of Loom's speedup over TTNN's default choice (TTNN
  hand-tuned), rows (M, N) and columns K as in the paper; other kernels as one bar per shape.
  "n/a" marks a shape without a TTNN baseline; an empty cell, a shape that was not run (shapes
  off the paper's grid are not drawn).
- model_vs_sim: Loom's modelled against its simulated figure per shape (TFLOPS for GEMM when the
  clock is given, cycles otherwise) with the y = x line (Fig. 12).
- regret: box plots of the top-1 schedule's regret on loom.sim (Figs. 10-11).

matplotlib is imported inside the functions, with the Agg backend, so `import loom` stays fast and no
display is needed.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path

from loom.bench.rows import BASELINE_LABELS, GEMM_K, GEMM_MN, Row

FIGURES = ("speedup", "model_vs_sim")
"""The figures of a run against TTNN's default; `figures` names them for any baselines."""
SIMULATED = "simulated on loom.sim"


def figure_path(out_dir: Path, kernel: str, arch: str, what: str) -> Path:
    return Path(out_dir) / f"{kernel}_{arch}_{what}.png"


def figures(baselines: Sequence[str] = ("default",)) -> list[str]:
    """The figures `bench_figures` draws: one speedup figure per baseline, then model vs sim."""
    return [_speedup_name(b) for b in baselines] + ["model_vs_sim"]


def _speedup_name(baseline: str) -> str:
    return "speedup" if baseline == "default" else f"speedup_{baseline}"


def bench_figures(rows: Sequence[Row], out_dir: Path, clock_ghz: float | None = None,
                  baselines: Sequence[str] = ("default",)) -> list[Path]:
    """The figures of one kernel on one chip (`figures`); returns the paths written."""
    return [*(speedup(rows, out_dir, b) for b in baselines), model_vs_sim(rows, out_dir, clock_ghz)]


def speedup(rows: Sequence[Row], out_dir: Path, baseline: str = "default") -> Path:
    """Speedup over a TTNN baseline: a heatmap for GEMM on the paper's grid, bars per shape otherwise."""
    kernel, arch = _identity(rows)
    fig = _figure()
    if kernel == "matmul" and any(map(_on_paper_grid, rows)):
        _speedup_heatmap(fig, rows, arch, baseline)
    else:
        _speedup_bars(fig, rows, kernel, arch, baseline)
    return _save(fig, figure_path(out_dir, kernel, arch, _speedup_name(baseline)))


def model_vs_sim(rows: Sequence[Row], out_dir: Path, clock_ghz: float | None = None) -> Path:
    """Modelled against simulated per shape, with y = x. GEMM in TFLOPS when `clock_ghz` is given
    (FLOPs are 2·M·N·K), every other kernel in cycles on log axes."""
    kernel, arch = _identity(rows)
    fig = _figure(figsize=(5.5, 5))
    ax = fig.add_subplot()
    if kernel == "matmul" and clock_ghz:
        def tflops(row: Row, cycles: float) -> float:
            s = shape_of(row)
            return 2.0 * s["M"] * s["N"] * s["K"] / (cycles / (clock_ghz * 1e9)) / 1e12
        xs = [tflops(r, r.loom_model_cycles) for r in rows]
        ys = [tflops(r, r.loom_sim_cycles) for r in rows]
        unit = "TFLOPS"
    else:
        xs = [float(r.loom_model_cycles) for r in rows]
        ys = [float(r.loom_sim_cycles) for r in rows]
        unit = "cycles"
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.scatter(xs, ys, s=28, zorder=3)
    low, high = min(xs + ys), max(xs + ys)
    pad = max((high / low) ** 0.05, 1.05) if unit == "cycles" else None
    lo, hi = (low / pad, high * pad) if pad else (0.0, high * 1.05)
    ax.plot([lo, hi], [lo, hi], color="grey", linestyle="--", linewidth=1, label="y = x")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel(f"modelled ({unit})")
    ax.set_ylabel(f"simulated ({unit})")
    errors = [abs(r.model_error) for r in rows]
    ax.legend(loc="upper left", title=f"mean |error| {sum(errors) / len(errors):.1%}, {len(rows)} shapes")
    ax.set_title(f"{kernel} on {arch}: model vs {SIMULATED}", fontsize=10)
    ax.grid(True, alpha=0.3)
    return _save(fig, figure_path(out_dir, kernel, arch, "model_vs_sim"))


def regret(regrets: dict[str, Sequence[float]], out_dir: Path, arch: str, kernel: str = "matmul") -> Path:
    """Box plots of regret (chosen / best - 1, as a percentage), one box per comparison, points on top,
    and the issue's 5 % line."""
    fig = _figure(figsize=(6, 4.5))
    ax = fig.add_subplot()
    labels = list(regrets)
    data = [[100 * v for v in regrets[label]] for label in labels]
    ax.boxplot(data, showfliers=False)
    ax.set_xticks(range(1, len(labels) + 1), labels)
    for i, values in enumerate(data, 1):
        jitter = [i + 0.08 * ((j * 7919) % 11 - 5) / 5 for j in range(len(values))]
        ax.scatter(jitter, values, s=14, alpha=0.7, color="tab:blue", zorder=3)
    ax.axhline(5, color="grey", linestyle="--", linewidth=1, label="5 % target")
    ax.set_ylabel("regret of top-1 (%)")
    ax.legend(loc="upper right")
    shapes = max(map(len, data), default=0)
    ax.set_title(f"{kernel} on {arch}: regret of the solver's top-1\n({SIMULATED}, {shapes} shapes)", fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)
    return _save(fig, figure_path(out_dir, kernel, arch, "regret"))


def shape_of(row: Row) -> dict[str, int]:
    """'M=256,N=256,K=256' -> {'M': 256, 'N': 256, 'K': 256}."""
    return {key: int(value) for key, value in (item.split("=") for item in row.shape.split(","))}


def _on_paper_grid(row: Row) -> bool:
    s = shape_of(row)
    return (s.get("M"), s.get("N")) in GEMM_MN and s.get("K") in GEMM_K


def _speedup_heatmap(fig, rows: Sequence[Row], arch: str, baseline: str) -> None:
    import numpy as np
    from matplotlib.colors import TwoSlopeNorm

    by_shape = {(s["M"], s["N"], s["K"]): r for r in rows for s in [shape_of(r)]}
    grid = np.full((len(GEMM_MN), len(GEMM_K)), np.nan)
    ax = fig.add_subplot()
    for i, (m, n) in enumerate(GEMM_MN):
        for j, k in enumerate(GEMM_K):
            row = by_shape.get((m, n, k))
            if row is None:
                continue  # not run: an empty cell
            value = row.speedup(baseline)
            if value:
                grid[i, j] = value
            text = f"{value:.2f}x" if value else "n/a"
            ax.text(j, i, text, ha="center", va="center", fontsize=10)
    values = grid[~np.isnan(grid)]
    vmin = min(float(values.min()) if values.size else 1.0, 0.9)
    vmax = max(float(values.max()) if values.size else 1.0, 1.1)
    image = ax.imshow(np.ma.masked_invalid(grid), cmap=_cmap("RdYlGn"), aspect="auto",
                      norm=TwoSlopeNorm(vmin=vmin, vcenter=1.0, vmax=vmax))
    if values.size:
        fig.colorbar(image, ax=ax, label="speedup over TTNN (x)")
    ax.set_xticks(range(len(GEMM_K)), [f"K={_size(k)}" for k in GEMM_K])
    ax.set_yticks(range(len(GEMM_MN)), [f"{_size(m)}²" if m == n else f"{_size(m)}×{_size(n)}"
                                        for m, n in GEMM_MN])
    ax.set_ylabel("M × N")
    ax.set_title(f"GEMM on {arch}: Loom speedup over {BASELINE_LABELS[baseline]}\n"
                 f"({SIMULATED}{_geomean_note(rows, baseline)})", fontsize=10)


def _speedup_bars(fig, rows: Sequence[Row], kernel: str, arch: str, baseline: str) -> None:
    ax = fig.add_subplot()
    heights = [r.speedup(baseline) or 0.0 for r in rows]
    colours = ["lightgrey" if not h else "tab:green" if h >= 1 else "tab:red" for h in heights]
    bars = ax.bar(range(len(rows)), heights, color=colours)
    for bar, height in zip(bars, heights):
        text = f"{height:.2f}x" if height else "n/a"
        ax.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center", va="bottom",
                    xytext=(0, 2), textcoords="offset points", fontsize=8)
    ax.axhline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(rows)), [r.shape.replace(",", "\n") for r in rows], fontsize=7)
    ax.set_ylabel("speedup over TTNN (x)")
    ax.set_ylim(0, max(heights + [1.0]) * 1.15)
    ax.set_title(f"{kernel} on {arch}: Loom speedup over {BASELINE_LABELS[baseline]}\n"
                 f"({SIMULATED}{_geomean_note(rows, baseline)})", fontsize=10)


def _geomean_note(rows: Sequence[Row], baseline: str) -> str:
    speedups = [r.speedup(baseline) for r in rows if r.speedup(baseline)]
    if not speedups:
        return ""
    plural = "s" if len(speedups) != 1 else ""
    return f", geomean {statistics.geometric_mean(speedups):.2f}x over {len(speedups)} shape{plural}"


def _size(n: int) -> str:
    return f"{n // 1024}K" if n >= 1024 and n % 1024 == 0 else str(n)


def _identity(rows: Sequence[Row]) -> tuple[str, str]:
    if not rows:
        raise ValueError("plots: no rows to plot")
    return rows[0].kernel, rows[0].arch


def _figure(figsize: tuple[float, float] = (7, 5)):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained")


def _cmap(name: str):
    import matplotlib

    return matplotlib.colormaps[name].with_extremes(bad="whitesmoke")


def _save(fig, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    return path
