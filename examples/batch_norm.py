"""Batch normalization (training statistics): each column normalized by its mean and variance over the
rows (the batch), then scaled and shifted per column."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def batch_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_n in hl.tile(n):
        xs = x[:, tile_n].to(torch.float32)
        mean = xs.sum(0) / m
        centered = xs - mean[None, :]
        var = (centered * centered).sum(0) / m
        scale = torch.rsqrt(var + eps) * weight[tile_n].to(torch.float32)
        out[:, tile_n] = (centered * scale[None, :] + bias[tile_n].to(torch.float32)).to(out.dtype)
    return out


def inputs(M: int = 256, N: int = 512, dtype: torch.dtype = torch.bfloat16):
    gen = torch.Generator().manual_seed(0)
    x = (torch.randn(M, N, generator=gen) * 2 + 0.5).to(dtype)
    return (x, torch.randn(N, generator=gen).to(dtype), torch.randn(N, generator=gen).to(dtype))


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    xf = x.float()  # torch's training-mode batch_norm, written out: it refuses a batch of one row
    mean, var = xf.mean(0), xf.var(0, unbiased=False)
    return ((xf - mean) * torch.rsqrt(var + eps) * weight.float() + bias.float()).to(x.dtype)
