"""torch.baddbmm on 3-D tiles of a batch tile: one 2-D accumulating matmul per batch slice."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def batched(a: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    batch, m, k = a.size()
    _, _, n = c.size()
    out = torch.empty([batch, m, n], dtype=a.dtype, device=a.device)
    for tile_b, tile_m, tile_n in hl.tile([batch, m, n]):
        acc = hl.zeros([tile_b, tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.baddbmm(acc, a[tile_b, tile_m, tile_k], c[tile_b, tile_k, tile_n])
        out[tile_b, tile_m, tile_n] = acc.to(out.dtype)
    return out


def inputs(B: int = 32, M: int = 64, N: int = 64, K: int = 64):
    return torch.randn(B, M, K).bfloat16(), torch.randn(B, K, N).bfloat16()


def reference(a, c):
    return torch.bmm(a.float(), c.float()).to(a.dtype)
