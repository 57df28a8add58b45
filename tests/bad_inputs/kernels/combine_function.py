"""A scan with a combine function (`hl.associative_scan`): Helion traces the function as a graph of its own."""
import torch

import helion
import helion.language as hl


def add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a + b


@helion.kernel(static_shapes=True)
def cumulative_sum(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile_m in hl.tile(x.size(0)):
        out[tile_m, :] = hl.associative_scan(add, x[tile_m, :], dim=1)  # LINE
    return out


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N),)
