"""A reduction over a whole, untiled dimension (Helion makes it a reduction loop)."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def row_max(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        t = x[tile_m, :]
        out[tile_m, :] = t - torch.amax(t, dim=-1, keepdim=True)  # LINE
    return out


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N),)
