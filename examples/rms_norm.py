"""RMSNorm over the last dimension: x / sqrt(mean(x²) + eps) * weight, one pass over column blocks for the
sum of squares and one to write the output."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        sum_sq = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            block = x[tile_m, tile_n].to(torch.float32)
            sum_sq = sum_sq + torch.sum(block * block, dim=1)
        inv_rms = torch.rsqrt(sum_sq / n + eps)
        for tile_n in hl.tile(n):
            block = x[tile_m, tile_n].to(torch.float32)
            out[tile_m, tile_n] = (block * inv_rms[:, None] * weight[tile_n].to(torch.float32)[None, :]).to(out.dtype)
    return out


def inputs(M: int = 128, N: int = 512, dtype: torch.dtype = torch.bfloat16):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, N, generator=gen).to(dtype), torch.randn(N, generator=gen).to(dtype))


def reference(x, weight, eps: float = 1e-6):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)
