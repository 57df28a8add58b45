"""hl.dot(a, b, acc=acc): the accumulating matmul (issue 17 part 2)."""
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def dot_acc(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = hl.dot(x[tile_m, tile_k], y[tile_k, tile_n], acc=acc)
        out[tile_m, tile_n] = acc.to(x.dtype)
    return out


def inputs(M: int = 128, N: int = 128, K: int = 64):
    return torch.randn(M, K).bfloat16(), torch.randn(K, N).bfloat16()


def reference(x, y):
    return (x.float() @ y.float()).to(x.dtype)
