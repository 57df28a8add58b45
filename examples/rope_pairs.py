"""Rotary position embedding written with Helion's pair views: each row's last dimension reshaped into
(2, half), permuted, split into its two halves and joined back; every head of a batch and block of
positions in one tile (`x[tile_b, :, tile_t, :]`), cos / sin broadcast over the heads."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def rope_pairs(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    batch, heads, seq, dim = x.size()
    half = dim // 2
    out = torch.empty_like(x)
    for tile_b, tile_t in hl.tile([batch, seq]):
        c_lo, c_hi = hl.split(cos[tile_b, tile_t, :].to(torch.float32).reshape([tile_b, tile_t, 2, half])
                              .permute(0, 1, 3, 2))
        s_lo, s_hi = hl.split(sin[tile_b, tile_t, :].to(torch.float32).reshape([tile_b, tile_t, 2, half])
                              .permute(0, 1, 3, 2))
        lo, hi = hl.split(x[tile_b, :, tile_t, :].to(torch.float32).reshape([tile_b, heads, tile_t, 2, half])
                          .permute(0, 1, 2, 4, 3))
        lo_out = lo * c_lo[:, None, :, :] - hi * s_lo[:, None, :, :]
        hi_out = hi * c_hi[:, None, :, :] + lo * s_hi[:, None, :, :]
        out[tile_b, :, tile_t, :] = (hl.join(lo_out, hi_out).permute(0, 1, 2, 4, 3)
                                     .reshape([tile_b, heads, tile_t, dim]).to(out.dtype))
    return out


def inputs(B: int = 2, H: int = 4, S: int = 128, D: int = 128, dtype: torch.dtype = torch.bfloat16):
    """H must be a power of two: Helion pads a whole dimension of another size, and the reshape of the
    padded tile fails in Helion itself."""
    gen = torch.Generator().manual_seed(0)
    angles = torch.randn(B, S, D // 2, generator=gen).repeat(1, 1, 2)
    return (torch.randn(B, H, S, D, generator=gen).to(dtype), torch.cos(angles).to(dtype),
            torch.sin(angles).to(dtype))


def reference(x, cos, sin):
    half = x.shape[-1] // 2
    xf, c, s = x.float(), cos.float()[:, None], sin.float()[:, None]
    lo, hi = xf[..., :half], xf[..., half:]
    return torch.cat([lo * c[..., :half] - hi * s[..., :half], hi * c[..., half:] + lo * s[..., half:]],
                     -1).to(x.dtype)
