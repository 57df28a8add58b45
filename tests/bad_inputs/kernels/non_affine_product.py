"""A row index that is the square of the tile index: not affine."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def squares(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for b, tile_n in hl.tile([8, n], block_size=[1, None]):
        out[b.begin, tile_n] = x[b.begin * b.begin, tile_n]  # LINE
    return out


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N),)
