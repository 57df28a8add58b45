"""A block size computed from a tunable (Helion's split-K example): refused, naming the tile."""
import torch

import helion
import helion.language as hl
from helion.autotuner import PowerOfTwoFragment


@helion.kernel(static_shapes=True)
def split_k(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:  # LINE
    m, k = x.size()
    _, n = y.size()
    out = torch.zeros([m, n], dtype=torch.float32)
    parts = hl.register_tunable("split_k", PowerOfTwoFragment(1, 256))
    k_block = helion.next_power_of_2(helion.cdiv(k, parts))
    for tile_m, tile_n, outer_k in hl.tile([m, n, k], block_size=[None, None, k_block]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for inner_k in hl.tile(outer_k.begin, outer_k.end):
            acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])
        out[tile_m, tile_n] = acc
    return out


def inputs():
    return (torch.randn(128, 512), torch.randn(512, 128))
