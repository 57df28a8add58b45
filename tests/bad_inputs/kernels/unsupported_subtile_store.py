"""A block stored at a column offset inside a 32 x 32 tile (`out[tile_m, 16:48]`) is not supported yet."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def shifted_copy(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.zeros([m, 64], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        out[tile_m, 16:48] = x[tile_m, :]  # LINE
    return out


def inputs(M: int = 64, N: int = 32):
    return (torch.randn(M, N),)
