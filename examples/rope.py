"""Rotary position embedding (rotate-half form): out = x * cos + rotate_half(x) * sin, per head."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    heads, seq, dim = x.size()
    half = dim // 2
    out = torch.empty_like(x)
    for h, tile_s in hl.tile([heads, seq], block_size=[1, None]):
        x1 = x[h.begin, tile_s, :half].to(torch.float32)
        x2 = x[h.begin, tile_s, half:].to(torch.float32)
        c1 = cos[tile_s, :half].to(torch.float32)
        c2 = cos[tile_s, half:].to(torch.float32)
        s1 = sin[tile_s, :half].to(torch.float32)
        s2 = sin[tile_s, half:].to(torch.float32)
        out[h.begin, tile_s, :half] = (x1 * c1 - x2 * s1).to(out.dtype)
        out[h.begin, tile_s, half:] = (x2 * c2 + x1 * s2).to(out.dtype)
    return out


def inputs(H: int = 4, S: int = 128, D: int = 64, dtype: torch.dtype = torch.bfloat16):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(H, S, D, generator=gen).to(dtype)
    angles = torch.randn(S, D // 2, generator=gen).repeat(1, 2)
    return (x, torch.cos(angles).to(dtype), torch.sin(angles).to(dtype))


def reference(x, cos, sin):
    half = x.shape[-1] // 2
    xf = x.float()
    rotated = torch.cat([-xf[..., half:], xf[..., :half]], dim=-1)
    return (xf * cos.float() + rotated * sin.float()).to(x.dtype)
