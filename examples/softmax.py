"""Row softmax in two passes over column blocks: an online max and sum, then the normalised row."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def softmax(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row_max = hl.full([tile_m], float("-inf"), dtype=torch.float32)
        row_sum = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            block = x[tile_m, tile_n].to(torch.float32)
            new_max = torch.maximum(row_max, torch.amax(block, dim=1))
            row_sum = row_sum * torch.exp(row_max - new_max) + torch.sum(torch.exp(block - new_max[:, None]), dim=1)
            row_max = new_max
        for tile_n in hl.tile(n):
            block = x[tile_m, tile_n].to(torch.float32)
            out[tile_m, tile_n] = (torch.exp(block - row_max[:, None]) / row_sum[:, None]).to(out.dtype)
    return out


def inputs(M: int = 128, N: int = 512, dtype: torch.dtype = torch.float32):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, N, generator=gen).to(dtype),)


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x.float(), dim=1).to(x.dtype)
