import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def scale_both_ways(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row = x[tile_m, :] * v[None, :]
        out[tile_m, :] = row * v[tile_m][:, None]  # LINE: v as a column after v as a row
    return out


def inputs(M: int = 64, N: int = 64):
    return torch.randn(M, N), torch.randn(N)
