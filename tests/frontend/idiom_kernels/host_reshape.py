"""A contiguous reshape of an argument in the host code (`x_2d = x.reshape(b * m, k)`) is the argument's
memory with another shape; the output is returned reshaped back (issue 17 part 6)."""
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def flat_matmul(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    b, m, k = x.size()
    _, n = w.size()
    x_2d = x.reshape([b * m, k])
    out = torch.empty([b * m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([b * m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = acc + x_2d[tile_m, tile_k] @ w[tile_k, tile_n]
        out[tile_m, tile_n] = acc.to(x.dtype)
    return out.view(b, m, n)


def inputs(B: int = 2, M: int = 64, N: int = 64, K: int = 64):
    return torch.randn(B, M, K).bfloat16(), torch.randn(K, N).bfloat16()


def reference(x, w):
    return (x.float() @ w.float()).to(x.dtype)
