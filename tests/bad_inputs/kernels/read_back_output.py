"""An intermediate the kernel stores to a tensor it created and reads back, transposed, in a later loop: blocks
other cores store."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def two_steps(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    m, n = x.size()
    half = torch.empty([m, n], dtype=x.dtype, device=x.device)
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        for tile_n in hl.tile(n):
            half[tile_m, tile_n] = x[tile_m, tile_n] * 0.5
        for tile_n in hl.tile(n):
            out[tile_m, tile_n] = half[tile_n, tile_m] + 1.0  # LINE
    return out, half


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N),)
