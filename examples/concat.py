"""Concatenate two matrices along columns: out = [x | y], each output block copied from whichever input
holds its columns."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def concat(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n1 = x.size()
    _, n2 = y.size()
    out = torch.empty([m, n1 + n2], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n1 + n2]):
        cols = tile_n.index
        from_x = hl.load(x, [tile_m, cols], extra_mask=(cols < n1)[None, :])
        from_y = hl.load(y, [tile_m, cols - n1], extra_mask=(cols >= n1)[None, :])
        out[tile_m, tile_n] = torch.where((cols < n1)[None, :], from_x, from_y)
    return out


def inputs(M: int = 128, N1: int = 128, N2: int = 256):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, N1, generator=gen), torch.randn(M, N2, generator=gen))


def reference(x, y):
    return torch.cat([x, y], dim=1)
