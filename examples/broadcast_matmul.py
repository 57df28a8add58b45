"""A batch of activations times one shared weight: out[b] = x[b] @ w (the weight broadcast over the batch)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def broadcast_matmul(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    batch, m, k = x.size()
    _, n = w.size()
    out = torch.empty([batch, m, n], dtype=x.dtype, device=x.device)
    for b, tile_m, tile_n in hl.tile([batch, m, n], block_size=[1, None, None]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[b.begin, tile_m, tile_k], w[tile_k, tile_n])
        out[b.begin, tile_m, tile_n] = acc.to(out.dtype)
    return out


def inputs(B: int = 4, M: int = 128, N: int = 128, K: int = 64, dtype: torch.dtype = torch.bfloat16):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(B, M, K, generator=gen).to(dtype), torch.randn(K, N, generator=gen).to(dtype))


def reference(x, w):
    return torch.matmul(x.float(), w.float()).to(x.dtype)
