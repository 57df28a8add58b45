"""Regression (issue 17): module-level globals a kernel uses (a dtype constant, a helper function).
The loader ran the file under a module name missing from sys.modules, and Helion failed with KeyError."""
import torch

import helion
import helion.language as hl

OUT_DTYPE = torch.float32
SCALE = 0.5


def scaled(t: torch.Tensor) -> torch.Tensor:
    return t * SCALE


@helion.kernel(static_shapes=True)
def scale_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=OUT_DTYPE, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = scaled(x[tile_m, tile_n]).to(OUT_DTYPE) + y[tile_m, tile_n]
    return out


alias = scale_add  # a second name for the same kernel is still one kernel


def inputs(M: int = 64, N: int = 64):
    return torch.randn(M, N), torch.randn(M, N)


def reference(x, y):
    return x * SCALE + y
