"""Regression (issue 17): a row sum carried out of one inner loop into a second was a buffer-protocol
deadlock in stage 'concrete' (the update `row = row + s` read and rewrote the loop's buffer)."""
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def two_pass_rows(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            row = row + torch.sum(x[tile_m, tile_n] * y[tile_m, tile_n], dim=1)
        for tile_n in hl.tile(n):
            out[tile_m, tile_n] = x[tile_m, tile_n] * (y[tile_m, tile_n] - row[:, None])
    return out


def inputs(M: int = 64, N: int = 128):
    return torch.randn(M, N), torch.randn(M, N)


def reference(x, y):
    return x * (y - (x * y).sum(1, keepdim=True))
