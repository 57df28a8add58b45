"""The state a chunked state-space model (Mamba2's SSD) passes from each chunk of a sequence to the next: per
chunk `c` and head `h`, states[b, c, h] = sum over the chunk's positions t of
x[b, t, h, :]^T (exp(dA[last] - dA[t]) dt[t]) B[b, t, h, :].

Three forms in one kernel, written as Mamba kernels are:
- `x` and `B` are [batch, seqlen, heads, dim]: a tile runs along the sequence with one head fixed, across the
  tensor's third dimension from the end. Loom holds them as [batch, heads, seqlen, dim] on the device, laid
  out so by the host (`loom.frontend.layouts`);
- the chunk's positions are `tile_k.index + tile_c.begin * chunk`, a tile shifted by a grid index;
- `dA[b, h, c, chunk - 1]` is one value and `dA[b, h, c, tile_k]` one row, at row `c` of their tiles: each
  is picked from the tile that holds it (`loom.frontend.picks`).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def chunk_state(x: torch.Tensor, b: torch.Tensor, dt: torch.Tensor, da: torch.Tensor) -> torch.Tensor:
    batch, seqlen, heads, dim = x.shape
    state = b.shape[-1]
    _, _, chunks, chunk = dt.shape
    out = torch.empty([batch, chunks, heads, dim, state], dtype=x.dtype, device=x.device)
    for tile_h, tile_m, tile_n, tile_b, tile_c in hl.tile([heads, dim, state, batch, chunks],
                                                         block_size=[1, None, None, 1, 1]):
        last = da[tile_b.begin, tile_h.begin, tile_c.begin, chunk - 1].to(torch.float32)
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(chunk):
            rows = tile_k.index + tile_c.begin * chunk
            x_k = x[tile_b.begin, rows, tile_h.begin, tile_m]
            decay = torch.exp(last - da[tile_b.begin, tile_h.begin, tile_c.begin, tile_k].to(torch.float32))
            scale = decay * dt[tile_b.begin, tile_h.begin, tile_c.begin, tile_k].to(torch.float32)
            weighted = (x_k.T * scale[None, :]).to(x.dtype)
            acc = hl.dot(weighted, b[tile_b.begin, rows, tile_h.begin, tile_n], acc=acc)
        out[tile_b.begin, tile_c.begin, tile_h.begin, tile_m, tile_n] = acc.to(x.dtype)
    return out


def inputs(B: int = 1, L: int = 512, H: int = 4, D: int = 64, N: int = 64, C: int = 128,
           dtype: torch.dtype = torch.bfloat16):
    """Example arguments: a sequence of L positions in chunks of C, H heads of D channels, a state of N."""
    gen = torch.Generator().manual_seed(0)
    chunks = L // C
    x = torch.randn(B, L, H, D, generator=gen).to(dtype)
    b = torch.randn(B, L, H, N, generator=gen).to(dtype)
    dt = (torch.rand(B, H, chunks, C, generator=gen) * 0.1).to(dtype)
    da = (-torch.rand(B, H, chunks, C, generator=gen) * 0.05).cumsum(-1).to(dtype)
    return x, b, dt, da


def reference(x: torch.Tensor, b: torch.Tensor, dt: torch.Tensor, da: torch.Tensor) -> torch.Tensor:
    batch, seqlen, heads, dim = x.shape
    _, _, chunks, chunk = dt.shape
    xs = x.float().reshape(batch, chunks, chunk, heads, dim)
    bs = b.float().reshape(batch, chunks, chunk, heads, -1)
    scale = torch.exp(da.float()[..., -1:] - da.float()) * dt.float()  # [batch, heads, chunks, chunk]
    weighted = (xs * scale.permute(0, 2, 3, 1)[..., None]).to(x.dtype).float()
    return torch.einsum("bcthd,bcthn->bchdn", weighted, bs).to(x.dtype)
