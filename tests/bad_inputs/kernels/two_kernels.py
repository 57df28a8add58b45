"""Two @helion.kernel functions: Loom would not know which to compile."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def scale(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = x[tile_m, tile_n] * 2.0
    return out


@helion.kernel(static_shapes=True)  # LINE
def shift(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = x[tile_m, tile_n] + 1.0
    return out


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N),)
