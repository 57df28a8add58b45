"""A zero power (x ** 0, a tile of ones) is refused; every other constant power is lowered."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def zeroth(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        t = x[tile_m, tile_n]
        out[tile_m, tile_n] = t ** 0  # LINE
    return out


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N),)
