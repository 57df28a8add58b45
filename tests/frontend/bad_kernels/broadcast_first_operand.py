"""A row's mean subtracted from the wrong side: `mean[:, None] - x` broadcasts the first operand."""

import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def centre(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row = x[tile_m, :]
        out[tile_m, :] = row.mean(-1)[:, None] - row  # LINE: the broadcast operand first
    return out


def inputs(M: int = 64, N: int = 128):
    return (torch.randn(M, N),)


def reference(x):
    return x.mean(-1, keepdim=True) - x
