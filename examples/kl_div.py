"""KL divergence per row, KL(target || input) with the input in log space:
sum_j target_j * (log target_j - input_j), streamed over column blocks."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def kl_div(log_input: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    m, n = log_input.size()
    out = torch.empty([m], dtype=torch.float32, device=log_input.device)
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            t = target[tile_m, tile_n].to(torch.float32)
            acc = acc + torch.sum(t * (torch.log(t) - log_input[tile_m, tile_n].to(torch.float32)), dim=1)
        out[tile_m] = acc
    return out


def inputs(M: int = 128, N: int = 512):
    gen = torch.Generator().manual_seed(0)
    log_input = torch.randn(M, N, generator=gen).log_softmax(-1)
    target = torch.randn(M, N, generator=gen).softmax(-1)
    return (log_input, target)


def reference(log_input, target):
    return torch.nn.functional.kl_div(log_input, target, reduction="none").sum(1)
