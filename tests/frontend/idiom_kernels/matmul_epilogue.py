"""A matmul whose epilogue is a callable argument (helion's examples/matmul.py form)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def matmul_epilogue(x: torch.Tensor, y: torch.Tensor, epilogue=lambda acc, tile: acc) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=torch.float32)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = epilogue(acc, (tile_m, tile_n))
    return out


def inputs(M: int = 128, K: int = 64, N: int = 96):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, K, generator=gen), torch.randn(K, N, generator=gen))
