"""Rows picked by an index tensor: the address depends on loaded data."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def gather_rows(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        rows = idx[tile_m]
        out[tile_m, tile_n] = x[rows, tile_n]  # LINE
    return out


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N), torch.arange(M))
