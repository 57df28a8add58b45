"""Loops whose carried values do or do not combine across cores (`loom.frontend.reductions`)."""

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def matmul_plus_one(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Starts its accumulator at 1: splitting K would add the 1 once per core."""
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.full([tile_m, tile_n], 1.0, dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = acc + x[tile_m, tile_k] @ y[tile_k, tile_n]
        out[tile_m, tile_n] = acc
    return out


@helion.kernel(static_shapes=True)
def decayed_sum(x: torch.Tensor) -> torch.Tensor:
    """acc = acc * 0.5 + x: the order of the chunks matters, no combine exists."""
    m, n = x.size()
    out = torch.empty([m, 32], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m, 32], dtype=torch.float32)
        for tile_n in hl.tile(n, block_size=32):
            acc = acc * 0.5 + x[tile_m, tile_n]
        out[tile_m, :] = acc
    return out


@helion.kernel(static_shapes=True)
def column_sum(x: torch.Tensor) -> torch.Tensor:
    """acc = acc + x: a plain sum over the row blocks of x."""
    m, n = x.size()
    out = torch.empty([32, n], dtype=torch.float32, device=x.device)
    for tile_n in hl.tile(n):
        acc = hl.zeros([32, tile_n], dtype=torch.float32)
        for tile_m in hl.tile(m, block_size=32):
            acc = acc + x[tile_m, tile_n]
        out[:, tile_n] = acc
    return out


def inputs(M: int = 256, N: int = 256, K: int = 256):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, K, generator=gen).to(torch.bfloat16), torch.randn(K, N, generator=gen).to(torch.bfloat16))
