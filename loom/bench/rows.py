"""What a benchmark run produces and the paper's GEMM grid: shared by the runner (`paper.py`) and
the figures (`plots.py`), so that neither imports the other's module for them."""

from __future__ import annotations

from dataclasses import dataclass

# The paper's GEMM shapes (Fig. 9): rows (M, N), columns K.
GEMM_MN = [(16384, 16384), (16384, 2048), (16384, 256), (2048, 2048), (2048, 256), (256, 256)]
GEMM_K = [256, 2048, 16384]


@dataclass
class Row:
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
