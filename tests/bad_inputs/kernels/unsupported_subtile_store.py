"""A store at a column inside a 32 x 32 tile (`stats[tile_m, 1]`) is not supported yet."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def row_stats(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    stats = torch.empty([m, 2], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        stats[tile_m, 0] = x[tile_m, :].sum(-1)
        stats[tile_m, 1] = x[tile_m, :].amax(-1)  # LINE
    return stats


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N),)
