"""Regression (issue 17): `x_tile @ w[:, :]` (a block no loop tiles) was KeyError: 1 in stage 1."""
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def whole_row_matmul(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        out[tile_m, :] = (x[tile_m, :] @ w[:, :]).to(x.dtype)
    return out


def inputs(M: int = 128, N: int = 64):
    return torch.randn(M, N).bfloat16(), torch.randn(N, N).bfloat16()


def reference(x, w):
    return (x.float() @ w.float()).to(x.dtype)
