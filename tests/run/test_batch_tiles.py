"""Batch tiles (issue 19 part 3): a tile that indexes only leading dimensions runs with block size 1 and
its dimension leaves the per-core tiles, so the batch extent may be anything (1, 3, 4, 5) and 3-D tile
code (`torch.baddbmm`, `torch.bmm(…, torch.float32)`, `amax(dim=2)`, `[:, :, None]`) runs as 2-D."""

from __future__ import annotations

import pytest

from loom.errors import UnsupportedError
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from tests.conftest import ROOT, run_kernel_text

HEADER = '''
import torch
import helion
import helion.language as hl
'''

SOFTMAX = HEADER + '''

@helion.kernel(static_shapes=True)
def batch_softmax(x: torch.Tensor) -> torch.Tensor:
    b, m, n = x.size()
    out = torch.empty_like(x)
    for tile_b, tile_m in hl.tile([b, m]):
        values = x[tile_b, tile_m, :]
        x_max = torch.amax(values, dim=2)
        exp_vals = torch.exp(values - x_max[:, :, None])
        out[tile_b, tile_m, :] = exp_vals / torch.sum(exp_vals, dim=2)[:, :, None]
    return out


def inputs(B: int = 5, M: int = 32, N: int = 64):
    return (torch.randn(B, M, N, generator=torch.Generator().manual_seed(0)),)


def reference(x):
    return torch.softmax(x, dim=-1)
'''

SCALE = HEADER + '''

@helion.kernel(static_shapes=True)
def scale3(a: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(a)
    for tile in hl.tile(a.size()):
        out[tile] = a[tile] * 2.0
    return out


def inputs(B: int = 3, S: int = 32, H: int = 64):
    return (torch.randn(B, S, H),)


def reference(a):
    return a * 2.0
'''

BATCH_SUM = HEADER + '''

@helion.kernel(static_shapes=True)
def batch_sum(x: torch.Tensor) -> torch.Tensor:
    b, m, n = x.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = x[:, tile_m, tile_n].sum(0)  # LINE
    return out


def inputs(B: int = 4, M: int = 32, N: int = 32):
    return (torch.randn(B, M, N),)
'''

ROW_STATS = HEADER + '''

@helion.kernel(static_shapes=True)
def row_stats(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    b, m, n = x.size()
    out = torch.empty_like(x)
    lse = torch.empty([b, m], dtype=torch.float32, device=x.device)
    for tile_b, tile_m in hl.tile([b, m]):
        values = x[tile_b, tile_m, :].to(torch.float32) * 0.18033688
        floor = hl.full([tile_b, tile_m], -1.0e30, dtype=torch.float32)
        top = torch.maximum(floor[:, :, None], torch.amax(values, -1, keepdim=True)).squeeze(-1)
        total = torch.sum(torch.exp(values - top.unsqueeze(-1)), -1)
        lse[tile_b, tile_m] = top + torch.log(total)
        out[tile_b, tile_m, :] = (x[tile_b, tile_m, :] * 0.18033688)
    return out, lse


def inputs(B: int = 3, M: int = 64, N: int = 64):
    return (torch.randn(B, M, N, generator=torch.Generator().manual_seed(0)).to(torch.bfloat16),)


def reference(x):
    return x * 0.18033688, torch.logsumexp(x.float() * 0.18033688, -1)
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "ring32"])
def test_a_batch_of_row_statistics_stored_per_slice_matches_torch(tmp_path, arch):
    """`lse[tile_b, tile_m]` (Helion's causal attention): a rank-2 tensor whose first dimension a batch tile
    indexes is a batch of columns; `squeeze(-1)` / `unsqueeze(-1)` of a `keepdim` result relabel it; and
    `x * 0.18…` on bf16 rounds the product, not the number (exactly torch's bf16 result)."""
    outcome = run_kernel_text(tmp_path, ROW_STATS, arch)
    assert outcome.check.ok, outcome.check
    lse = next(t for t in outcome.program.tensors if t.name == "lse")
    assert lse.vector == "col" and lse.shape[:2] == (3, 64)  # a column of each batch slice
    out = outcome.sim.outputs["out"][:, :64, :64]
    x = load_kernel_file(tmp_path / "kernel.py").example_args()[0]
    assert (out == (x * 0.18033688).float().numpy()).all()


@pytest.mark.parametrize("batch", [1, 3, 4])
def test_helions_bmm_with_a_batch_tile_matches_torch(tmp_path, batch):
    """`idiom_kernels/baddbmm_batch_tile.py`: Helion's bmm, `torch.baddbmm` on `[tile_b, tile_m, tile_k]`."""
    text = (ROOT / "tests" / "frontend" / "idiom_kernels" / "baddbmm_batch_tile.py").read_text()
    outcome = run_kernel_text(tmp_path, text, sizes={"B": batch, "M": 64, "N": 32, "K": 64})
    assert outcome.check.ok, outcome.check
    assert {t.name: t.shape for t in outcome.program.tensors}["out"] == (batch, 64, 32)


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
def test_batched_softmax_over_whole_rows_matches_torch(tmp_path, arch):
    assert run_kernel_text(tmp_path, SOFTMAX, arch).check.ok


def test_a_tile_over_every_dimension_of_a_3d_tensor_matches_torch(tmp_path):
    """`hl.tile(a.size())` over [3, 32, 64]: the leading block left to the solver before wrote most of the
    output never (the block was sized as if it were a 2-D tile's)."""
    assert run_kernel_text(tmp_path, SCALE).check.ok


def test_a_reduction_over_a_batch_dimension_is_refused_at_its_line(tmp_path):
    path = tmp_path / "kernel.py"
    path.write_text(BATCH_SUM)
    source = load_kernel_file(path)
    with pytest.raises(UnsupportedError) as info:
        compile_kernel(source.kernel, source.example_args(), "wormhole_n150")
    line = next(i for i, text in enumerate(BATCH_SUM.splitlines(), 1) if "# LINE" in text)
    assert info.value.location is not None and info.value.location.line == line
