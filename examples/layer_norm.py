"""LayerNorm over the last dimension, whole rows per tile: (x - mean) / sqrt(var + eps) * weight + bias."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row = x[tile_m, :].to(torch.float32)
        mean = torch.mean(row, dim=-1)
        centered = row - mean[:, None]
        var = torch.mean(centered * centered, dim=-1)
        normed = centered * torch.rsqrt(var + eps)[:, None]
        out[tile_m, :] = (normed * weight[None, :].to(torch.float32) + bias[None, :].to(torch.float32)).to(out.dtype)
    return out


def inputs(M: int = 128, N: int = 256, dtype: torch.dtype = torch.bfloat16):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(M, N, generator=gen).to(dtype)
    weight = torch.randn(N, generator=gen).to(dtype)
    bias = torch.randn(N, generator=gen).to(dtype)
    return (x, weight, bias)


def reference(x, weight, bias, eps: float = 1e-5):
    return torch.nn.functional.layer_norm(x.float(), [x.shape[-1]], weight.float(), bias.float(), eps).to(x.dtype)
