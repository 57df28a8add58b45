"""One column at a position whose place in its tile moves over 16 tiles (`tile_n.begin // 2`): refused at its
line rather than read as one block of every tile it can reach."""
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def half_column(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        column = x[tile_m, tile_n.begin // 2]  # LINE
        out[tile_m, tile_n] = x[tile_m, tile_n] + column[:, None]
    return out


def inputs(M: int = 64, N: int = 1024):
    return (torch.randn(M, N),)


def reference(x):
    return x
