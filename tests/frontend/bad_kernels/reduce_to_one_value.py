import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def count_kept(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        kept = (tile_n.index < n).to(torch.int32).sum()  # LINE: a 0-d value
        out[tile_m, tile_n] = x[tile_m, tile_n] / kept
    return out


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N),)
