"""Row sums of the upper triangle, torch.triu(x).sum(-1): each row block reads the columns from its own
start on (`hl.tile(tile_m.begin, n)`, the mirror of causal attention's `hl.tile(0, tile_m.end)`), masks the
part of its first column blocks below the diagonal, and skips the blocks left of it."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def upper_row_sums(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(tile_m.begin, n):
            v = x[tile_m, tile_n].to(torch.float32)
            v = torch.where(tile_m.index[:, None] <= tile_n.index[None, :], v, 0.0)
            acc = acc + v.sum(-1)
        out[tile_m] = acc
    return out


def inputs(M: int = 256, N: int = 256, dtype: torch.dtype = torch.bfloat16):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, N, generator=gen).to(dtype),)


def reference(x):
    return torch.triu(x.float()).sum(-1)
