"""Regression (issue 17): `a * a` reaches Loom as `mul(a, None)` (Helion passes each input buffer once);
geglu's GELU was an internal error `float(None)` in stage 1."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def cube_plus(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        a = x[tile_m, tile_n]
        out[tile_m, tile_n] = 0.5 * a + 0.044715 * (a * a * a)
    return out


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N),)


def reference(x):
    return 0.5 * x + 0.044715 * x * x * x
