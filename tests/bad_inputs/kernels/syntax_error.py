"""A kernel file that does not parse."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def scale(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    for tile_m, tile_n in hl.tile([m, n])  # LINE
        pass
