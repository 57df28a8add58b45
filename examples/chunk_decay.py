"""The per-chunk decay of a gated linear-attention layer (gated delta net's `exp(g[last] - g[t])`): each
position t of a chunk of C positions scales its values by exp(g[last] - g[t]), `last` the chunk's final
position, per head.

Written as gated-delta-net kernels are: tiles over a sequence of [batch, seqlen, heads, dim] values with one
head fixed (held permuted, `loom.frontend.layouts`), the gate `g[b, t, h]` read as one column of a [seqlen,
heads] matrix at head `h` (picked from every tile its heads reach), and the chunk's last position
`min(t.begin + C, seqlen) - 1` as one value (picked from the one tile at a place that moves with `t`:
`loom.frontend.picks`).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def chunk_decay(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    batch, seqlen, heads, dim = x.shape
    chunk = 64
    out = torch.empty_like(x)
    for tile_b, tile_h in hl.tile([batch, heads], block_size=[1, 1]):
        for tile_t in hl.tile(seqlen, block_size=chunk):
            last = min(tile_t.begin + chunk, seqlen) - 1
            decay = torch.exp(g[tile_b.id, last, tile_h.id] - g[tile_b.id, tile_t, tile_h.id])
            out[tile_b.id, tile_t, tile_h.id, :] = (x[tile_b.id, tile_t, tile_h.id, :] * decay[:, None]).to(x.dtype)
    return out


def inputs(B: int = 2, L: int = 512, H: int = 40, D: int = 64, dtype: torch.dtype = torch.bfloat16):
    """Example arguments: L positions in chunks of 64, H heads of D channels, a gate that only falls."""
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(B, L, H, D, generator=gen).to(dtype)
    g = (-torch.rand(B, L, H, generator=gen) * 0.1).cumsum(1)
    return x, g


def reference(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    batch, seqlen, heads, _ = x.shape
    chunks = g.reshape(batch, seqlen // 64, 64, heads)
    decay = torch.exp(chunks[:, :, -1:, :] - chunks).reshape(batch, seqlen, heads)
    return (x.float() * decay[..., None]).to(x.dtype)
