"""torch.addmm accumulation, then a residual tile added in the epilogue (issue 17 part 2)."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def addmm_residual(x: torch.Tensor, y: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = acc + residual[tile_m, tile_n]
    return out


def inputs(M: int = 128, N: int = 128, K: int = 64):
    return torch.randn(M, K).bfloat16(), torch.randn(K, N).bfloat16(), torch.randn(M, N)


def reference(x, y, residual):
    return x.float() @ y.float() + residual
