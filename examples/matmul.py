"""GEMM: out[m, n] = x[m, k] @ y[k, n], low-precision inputs with fp32 accumulation."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = acc + x[tile_m, tile_k] @ y[tile_k, tile_n]
        out[tile_m, tile_n] = acc.to(x.dtype)
    return out


def inputs(M: int = 256, N: int = 256, K: int = 256, dtype: torch.dtype = torch.bfloat16):
    """Example arguments; the keyword names are what `--shape M=…,N=…,K=…` sets."""
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(M, K, generator=gen).to(dtype)
    y = torch.randn(K, N, generator=gen).to(dtype)
    return (x, y)


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return (x.float() @ y.float()).to(x.dtype)
