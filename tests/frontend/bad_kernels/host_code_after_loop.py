import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def total(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    rows = torch.empty([m], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        rows[tile_m] = x[tile_m, :].sum(-1)
    return rows.sum()  # LINE: host code the per-core programs would not run


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N),)
