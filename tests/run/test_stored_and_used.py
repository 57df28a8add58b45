"""A value stored to an output and used on after the store (`rstd[tile_m] = r` then `x * r`): the writer
drains a copy and compute keeps the value (a circular buffer has one consumer engine). Helion's own
layer_norm / rms_norm forward kernels store their statistics this way."""

from __future__ import annotations

import pytest

from tests.conftest import run_kernel_text

KERNEL = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def rms_norm_with_stats(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    m, n = x.size()
    out = torch.empty_like(x)
    inv_rms = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        row = x[tile_m, :].to(torch.float32)
        r = torch.rsqrt(torch.mean(row * row, dim=-1) + 1e-5)
        inv_rms[tile_m] = r
        out[tile_m, :] = (row * r[:, None]).to(out.dtype)
    return out, inv_rms


def inputs(M: int = 64, N: int = 128):
    return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)).to(torch.bfloat16),)


def reference(x):
    row = x.float()
    r = torch.rsqrt((row * row).mean(-1) + 1e-5)
    return (row * r[:, None]).to(x.dtype), r
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "ring32"])
def test_a_statistic_stored_and_used_on_matches_torch(tmp_path, arch):
    outcome = run_kernel_text(tmp_path, KERNEL, arch)
    assert outcome.check.ok, outcome.check
