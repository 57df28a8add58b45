"""Sum of each row of a long matrix, streamed over column blocks into a per-row accumulator."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def long_sum(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            acc = acc + torch.sum(x[tile_m, tile_n].to(torch.float32), dim=1)
        out[tile_m] = acc
    return out


def inputs(M: int = 64, N: int = 16384):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, N, generator=gen),)


def reference(x):
    return x.float().sum(1)
