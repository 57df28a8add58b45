"""Regression (issue 17): a float kernel argument (`scale`, here left at its default) and a float module
constant are symbols (`zuf0`) in Helion's Device IR; stage 1 called float() on the FX node (internal error)."""
import math

import torch

import helion
import helion.language as hl

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@helion.kernel(static_shapes=True)
def scale_shift(x: torch.Tensor, scale: float = 3.0) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = SQRT_2_OVER_PI * x[tile_m, tile_n] * scale
    return out


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N),)


def reference(x, scale: float = 3.0):
    return math.sqrt(2.0 / math.pi) * x * scale
