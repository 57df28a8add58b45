"""Shared fixtures: the repository root as working directory, example kernel files, golden files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
GOLDEN = ROOT / "tests" / "golden"
ARCH_DIR_FOR_TESTS = ROOT / "loom" / "archs"
KERNELS = ("matmul", "flash_attention", "flash_decode")
# Issue 17's own examples, with small test shapes
# and whether Helion's CPU interpreter runs them (torch.addmm of bf16 into fp32 does not: no aten::mm.dtype).
ISSUE17_EXAMPLES = {
    "softmax": ({"M": 64, "N": 256}, True),
    "bmm": ({"B": 2, "M": 64, "N": 64, "K": 64}, False),
    "broadcast_matmul": ({"B": 2, "M": 64, "N": 64, "K": 64}, False),
    "geglu": ({"M": 64, "N": 128}, True),
    "softmax_rows": ({"M": 64, "N": 256}, True),
    "layer_norm": ({"M": 64, "N": 256}, True),
    "rms_norm": ({"M": 64, "N": 256}, True),
    "long_sum": ({"M": 64, "N": 1024}, True),
    "kl_div": ({"M": 64, "N": 256}, True),
    "swiglu": ({"M": 64, "N": 128}, True),
    "matmul_bias_gelu": ({"M": 64, "N": 64, "K": 64}, False),
    "rope": ({"H": 2, "S": 64, "D": 64}, True),
    "rope_pairs": ({"B": 2, "H": 2, "S": 64, "D": 64}, True),  # reshape / permute / hl.split / hl.join; whole heads
    "cross_entropy": ({"N": 64, "V": 200}, True),  # int64 labels; a vocabulary tail
    "upper_row_sums": ({"M": 96, "N": 200}, True),  # a loop from the row block's start (issue 19)
    "welford": ({"M": 96, "N": 200}, True),  # two columns of one tile stored (gathered into one block)
    "batch_norm": ({"M": 200, "N": 96}, True),  # column statistics (`x.sum(0)`) broadcast down rows; a row tail
    "rms_norm_backward": ({"M": 200, "N": 96}, True),  # per-tile partials sized by the solver's row block
    "token_loss": ({"B": 2, "L": 100, "V": 200}, True),  # one value per batch slice; logits[:, :-1, :]; tails
    "cross_entropy_rows": ({"N": 100, "V": 200}, True),  # a flat view's element per row picked by the labels
    "concat": ({"M": 64, "N1": 64, "N2": 100}, True),  # loads at shifted tile positions, reaching outside x and y
    "split_k_matmul": ({"M": 64, "N": 96, "K": 1024}, False),  # hl.atomic_add over a walked grid dimension
    # [batch, seqlen, heads, dim] tensors held permuted; tiles shifted by a grid index; a row and a value picked
    "chunk_state": ({"B": 1, "L": 256, "H": 2, "D": 64, "N": 96, "C": 64}, False),
    # a column of g at head h over 40 heads (two tiles), `min(t.begin + 64, L) - 1` picked; x held permuted
    "chunk_decay": ({"B": 1, "L": 128, "H": 40, "D": 32}, True),
}
# Small shapes for golden IR: every tiled dimension a multiple of 32.
GOLDEN_SHAPES = {
    "matmul": {"M": 256, "N": 128, "K": 64},
    "flash_attention": {"B": 1, "H": 2, "L": 128, "D": 64},
    "flash_decode": {"B": 2, "H": 2, "L": 256, "D": 64},
}


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch):
    """Paths in IR and messages are relative to the working directory: pin it to the repo root."""
    monkeypatch.chdir(ROOT)


def check_golden(name: str, text: str) -> None:
    """Compare with tests/golden/<name>; `LOOM_ACCEPT=1 make test` rewrites the expected file."""
    path = GOLDEN / name
    if os.environ.get("LOOM_ACCEPT") == "1":
        path.write_text(text)
        return
    assert path.exists(), f"missing golden file {path}; run with LOOM_ACCEPT=1 to create it"
    expected = path.read_text()
    assert text == expected, f"{name} differs from the golden file; inspect, then LOOM_ACCEPT=1 to accept"


def run_kernel_text(directory: Path, text: str, arch: str = "wormhole_n150", sizes: dict | None = None):
    """Write a kernel file's text into `directory`, compile it for `arch` at its example sizes (or
    `sizes`), run it in loom.sim and check it against its reference(): the RunResult."""
    from loom.kernel_file import load_kernel_file
    from loom.pipeline import compile as compile_kernel
    from loom.run import run

    path = directory / "kernel.py"
    path.write_text(text)
    source = load_kernel_file(path)
    args = source.example_args(sizes)
    return run(compile_kernel(source.kernel, args, arch), args, reference=source.reference)
