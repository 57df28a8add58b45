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
        other = y[tile_m, tile_n]
        if use_y:
            acc = acc + other
        if beta != 0.0:  # two variables assigned in both branches
            acc = acc * beta
            other = other * 3.0
        else:
            acc = acc * 2.0
            other = other * (1.0 - beta)
        out[tile_m, tile_n] = acc + other
    return out


def inputs(M: int = 64, N: int = 64):
    return torch.randn(M, N), torch.randn(M, N)


def reference(x, y, beta=0.5, use_y=True):
    return (x + y) * beta + y * 3.0
