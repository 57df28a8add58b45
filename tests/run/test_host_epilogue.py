"""Host code around the device loop runs in torch, as Helion runs it: `loom run` fills the tensors the loop
writes with the simulated results and runs the kernel's statements after the loop (`return rows.sum()`,
a branch on a string argument), and before it (`hl.register_block_size`) on the host."""

from __future__ import annotations

import pytest

from tests.conftest import run_kernel_text

TOTAL = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def total(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    rows = torch.empty([m], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        rows[tile_m] = x[tile_m, :].sum(-1)
    return rows.sum()


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)),)


def reference(x):
    return x.sum()
'''

MEAN_LOSS = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def squared_error(a: torch.Tensor, b: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    rows, cols = a.shape
    loss = torch.zeros([rows], dtype=torch.float32, device=a.device)
    block_n = hl.register_block_size(cols)
    for tile_m in hl.tile(rows):
        acc = hl.zeros([tile_m, block_n], dtype=torch.float32)
        for tile_n in hl.tile(cols, block_size=block_n):
            d = a[tile_m, tile_n] - b[tile_m, tile_n]
            acc = acc + d * d
        loss[tile_m] = acc.sum(-1)
    if reduction == "mean":
        result = torch.sum(loss) / (rows * cols)
    else:
        result = loss
    return result


def inputs(M: int = 64, N: int = 128):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, N, generator=gen), torch.randn(M, N, generator=gen))


def reference(a, b, reduction="mean"):
    return ((a - b) ** 2).mean()
'''


@pytest.mark.parametrize("text", [TOTAL, MEAN_LOSS], ids=["sum_of_rows", "mean_loss"])
def test_host_code_after_the_loop_runs_in_torch_on_the_simulated_results(tmp_path, text):
    outcome = run_kernel_text(tmp_path, text)
    assert outcome.check.ok, outcome.check
    assert "host code from line" in outcome.check.tensor
