"""if/else on kernel arguments (a bool, a float compared with a constant), folded when compiling (issue 17 part 4)."""
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def branch(x: torch.Tensor, y: torch.Tensor, beta: float = 0.5, use_y: bool = True) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = x[tile_m, tile_n]
        if use_y:
            acc = acc + y[tile_m, tile_n]
        if beta != 0.0:
            acc = acc * beta
        else:
            acc = acc * 2.0
        out[tile_m, tile_n] = acc
    return out


def inputs(M: int = 64, N: int = 64):
    return torch.randn(M, N), torch.randn(M, N)


def reference(x, y, beta=0.5, use_y=True):
    return (x + y) * beta
