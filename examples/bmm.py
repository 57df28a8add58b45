"""Batched matrix multiply: out[b] = a[b] @ c[b], one batch per tile (block size 1), addmm accumulation."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def bmm(a: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    batch, m, k = a.size()
    _, _, n = c.size()
    out = torch.empty([batch, m, n], dtype=a.dtype, device=a.device)
    for b, tile_m, tile_n in hl.tile([batch, m, n], block_size=[1, None, None]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, a[b.begin, tile_m, tile_k], c[b.begin, tile_k, tile_n])
        out[b.begin, tile_m, tile_n] = acc.to(out.dtype)
    return out


def inputs(B: int = 4, M: int = 128, N: int = 128, K: int = 64, dtype: torch.dtype = torch.bfloat16):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(B, M, K, generator=gen).to(dtype), torch.randn(B, K, N, generator=gen).to(dtype))


def reference(a, c):
    return torch.bmm(a.float(), c.float()).to(a.dtype)
