"""float64 tensors: Loom lowers float32, bfloat16 and float16, int32/int64 indices, and holds 8- and 16-bit integers and fp8 in wider tiles."""
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def scale(x: torch.Tensor) -> torch.Tensor:  # LINE
    m, n = x.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = x[tile_m, tile_n] + x[tile_m, tile_n]
    return out


def inputs(M: int = 64, N: int = 64):
    return (torch.ones(M, N, dtype=torch.float64),)
