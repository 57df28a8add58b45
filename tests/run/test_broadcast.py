"""Binary ops broadcast their second operand by row, column or scalar (issue 17); a commutative op with the
broadcast operand first (`w[None, :] * x`) is swapped, and `m[:, None] - x` / `m[:, None] / x` become
-(x - m) / (1 / x) * m, rather than refused."""

from __future__ import annotations

import pytest
from xdsl.ir.affine import AffineMap

from loom.backend.compute_instructions import _bcast
from tests.conftest import run_kernel_text

OUT = AffineMap.identity(3)  # (b, m, n) -> (b, m, n)


@pytest.mark.parametrize("dims, expected", [((0, 1, 2), "none"), ((0, 1), "col"), ((0, 2), "row"), ((0,), "scalar")])
def test_second_operand_broadcast_is_read_from_its_indexing_map(dims, expected):
    operand = AffineMap.from_callable(lambda b, m, n: tuple((b, m, n)[d] for d in dims))
    assert _bcast(operand, OUT) == expected


KERNEL = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def scale_columns(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row = x[tile_m, :]
        out[tile_m, :] = w[None, :] * row + row.sum(-1, keepdim=True)
    return out


def inputs(M: int = 64, N: int = 128):
    return torch.randn(M, N), torch.randn(N)


def reference(x, w):
    return w[None, :] * x + x.sum(-1, keepdim=True)
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "ring32"])
def test_row_vector_first_and_keepdim_column_match_torch(tmp_path, arch):
    outcome = run_kernel_text(tmp_path, KERNEL, arch)
    assert {t.name: t.vector for t in outcome.program.tensors}["w"] == "row"
    assert outcome.check.ok, outcome.check


EPILOGUE = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def bias_epilogue(x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    m, k = x.size()
    _, n = w.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    aux = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], w[tile_k, tile_n])
        pre = acc + bias[tile_n]
        aux[tile_m, tile_n] = pre.to(x.dtype)
        out[tile_m, tile_n] = torch.relu(pre).to(x.dtype)
    return out, aux


def inputs(M: int = 64, K: int = 64, N: int = 96):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, K, generator=gen).to(torch.bfloat16), torch.randn(K, N, generator=gen).to(torch.bfloat16),
            torch.randn(N, generator=gen).to(torch.bfloat16))


def reference(x, w, bias):
    pre = x.float() @ w.float() + bias.float()
    return torch.relu(pre).to(x.dtype), pre.to(x.dtype)
'''


def test_rank1_operand_broadcasts_as_torch_does_and_outputs_pair_in_return_order(tmp_path):
    """`acc + bias[tile_n]` is torch's implicit broadcast of a rank-1 operand along the last dimension (a
    row, not a column); `aux` is stored first but returned second, and reference() returns in that order."""
    outcome = run_kernel_text(tmp_path, EPILOGUE)
    assert {t.name: t.vector for t in outcome.program.tensors}["bias"] == "row"
    assert outcome.check.ok, outcome.check


FIRST_BROADCAST = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def centre(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    m, n = x.size()
    below = torch.empty_like(x)
    share = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row = x[tile_m, :]
        below[tile_m, :] = row.amax(-1)[:, None] - row
        share[tile_m, :] = row.sum(-1, keepdim=True) / (row * row + 1.0)
    return below, share


def inputs(M: int = 64, N: int = 128):
    return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)),)


def reference(x):
    return x.amax(-1, keepdim=True) - x, x.sum(-1, keepdim=True) / (x * x + 1.0)
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150"])
def test_non_commutative_ops_with_the_broadcast_operand_first_match_torch(tmp_path, arch):
    outcome = run_kernel_text(tmp_path, FIRST_BROADCAST, arch)
    assert outcome.check.ok, outcome.check
