"""Split-K GEMM as Helion users write it: the k dimension cut into `split_k` chunks by a grid dimension, each
chunk's product added into `out` with `hl.atomic_add`.

Tenstorrent has no atomic adds in DRAM. Loom reads the adds over `outer_k` as what they compute, the product
over all of k (`loom.frontend.split_sums`): one loop over k, whose split across cores (and `split_k`, a tunable
here) the solver chooses; each block of `out` is then read, added to and written once.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl
from helion.autotuner import PowerOfTwoFragment


@helion.kernel(static_shapes=True)
def split_k_matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.zeros([m, n], dtype=torch.float32, device=x.device)
    split_k = hl.register_tunable("split_k", PowerOfTwoFragment(1, 256))
    k_block = helion.next_power_of_2(helion.cdiv(k, split_k))
    for tile_m, tile_n, outer_k in hl.tile([m, n, k], block_size=[None, None, k_block]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for inner_k in hl.tile(outer_k.begin, outer_k.end):
            acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])
        hl.atomic_add(out, [tile_m, tile_n], acc)
    return out


def inputs(M: int = 64, N: int = 64, K: int = 2048, dtype: torch.dtype = torch.bfloat16):
    """Example arguments: a long k, where splitting it across cores pays."""
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, K, generator=gen).to(dtype), torch.randn(K, N, generator=gen).to(dtype))


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x.float() @ y.float()
