"""A rank-1 kernel: each vector is laid out as an N x 1 matrix for the per-core backends."""

import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def double(x: torch.Tensor) -> torch.Tensor:
    (n,) = x.size()
    out = torch.empty([n], dtype=x.dtype, device=x.device)
    for tile_n in hl.tile(n):
        out[tile_n] = x[tile_n] * 2.0
    return out


def inputs(N: int = 1024):
    return (torch.randn(N),)


def reference(x):
    return x * 2.0
