"""What a benchmark run produces and the paper's GEMM grid: shared by the runner (`paper.py`) and
the figures (`plots.py`), so that neither imports the other's module for them."""

from __future__ import annotations

from dataclasses import dataclass, fields

# The paper's GEMM shapes (Fig. 9): rows (M, N), columns K.
GEMM_MN = [(16384, 16384), (16384, 2048), (16384, 256), (2048, 2048), (2048, 256), (256, 256)]
GEMM_K = [256, 2048, 16384]


@dataclass
class Row:
    """One shape: Loom's pick, and each baseline run against it. `ttnn_sim_cycles` and
    `speedup_vs_ttnn` are TTNN's default (as before there were two baselines); the `_tuned`
    pair, TTNN hand-tuned. A baseline not run, or with nothing to compare, leaves None."""

    kernel: str
    arch: str
    shape: str
    loom_candidate: str
    loom_block_sizes: str
    loom_model_cycles: int
    loom_sim_cycles: float
    ttnn_sim_cycles: float | None
    speedup_vs_ttnn: float | None
    model_error: float
    compile_seconds: float
    note: str = ""
    ttnn_tuned_sim_cycles: float | None = None
    speedup_vs_ttnn_tuned: float | None = None
    dram_bytes: int | None = None  # what the kernel must move: arguments read once, outputs written once
    roofline_cycles: float | None = None  # `loom.bench.roofline`: DRAM bytes / peak bandwidth, GEMM flops / peak
    of_roofline: float | None = None  # roofline_cycles / loom_sim_cycles

    def speedup(self, baseline: str) -> float | None:
        return getattr(self, BASELINE_COLUMNS[baseline][1])


BASELINE_COLUMNS = {"default": ("ttnn_sim_cycles", "speedup_vs_ttnn"),
                    "tuned": ("ttnn_tuned_sim_cycles", "speedup_vs_ttnn_tuned")}
"""Each baseline's (cycles, speedup) columns of a Row."""

BASELINE_LABELS = {"default": "TTNN default", "tuned": "TTNN hand-tuned"}


def csv_columns(baselines: tuple[str, ...]) -> list[str]:
    """A Row's columns, without those of the baselines not run (a default-only run writes the
    columns it always wrote)."""
    dropped = {c for b, cols in BASELINE_COLUMNS.items() if b not in baselines for c in cols}
    return [f.name for f in fields(Row) if f.name not in dropped]
