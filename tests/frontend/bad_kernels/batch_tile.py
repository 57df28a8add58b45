import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def scale3(a: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(a)
    for tile in hl.tile(a.size()):
        out[tile] = a[tile] * 2.0  # LINE: a 3-D tile whose batch block the solver would size (was silently wrong)
    return out


def inputs(B: int = 64, S: int = 32, H: int = 64):
    return (torch.randn(B, S, H),)
