"""Linear layer with a fused epilogue: gelu(x @ w + bias), accumulated with torch.addmm in fp32."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def matmul_bias_gelu(x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    _, n = w.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], w[tile_k, tile_n])
        acc = acc + bias[tile_n].to(torch.float32)[None, :]
        out[tile_m, tile_n] = torch.nn.functional.gelu(acc).to(out.dtype)
    return out


def inputs(M: int = 256, N: int = 256, K: int = 128, dtype: torch.dtype = torch.bfloat16):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(M, K, generator=gen).to(dtype)
    w = torch.randn(K, N, generator=gen).to(dtype)
    bias = torch.randn(N, generator=gen).to(dtype)
    return (x, w, bias)


def reference(x, w, bias):
    return torch.nn.functional.gelu(x.float() @ w.float() + bias.float()).to(x.dtype)
