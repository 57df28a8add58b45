"""Regression (issue 17): a kernel with two outputs and a reference returning a tuple; the check assumed
exactly one output (ValueError, an internal error). The outputs are created in the other order than returned."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def sum_and_product(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    m, n = x.size()
    prod = torch.empty([m, n], dtype=x.dtype, device=x.device)
    total = torch.empty([m, n // 2], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n // 2]):
        prod[tile_m, tile_n] = x[tile_m, tile_n] * y[tile_m, tile_n]
        total[tile_m, tile_n] = x[tile_m, tile_n] + y[tile_m, tile_n]
    return total, prod


def inputs(M: int = 64, N: int = 128):
    return torch.randn(M, N), torch.randn(M, N)


def reference(x, y):
    half = x.shape[1] // 2
    prod = torch.zeros_like(x)
    prod[:, :half] = x[:, :half] * y[:, :half]
    return x[:, :half] + y[:, :half], prod
