"""Host code only: no hl.tile launch grid."""
import torch

import helion
import helion.language as hl  # noqa: F401


@helion.kernel(static_shapes=True)
def host_only(x: torch.Tensor) -> torch.Tensor:  # LINE
    return x + 1


def inputs(M: int = 64):
    return (torch.randn(M),)
