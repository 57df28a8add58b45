"""A load at tile positions shifted by a part of a tile (Helion's masked concatenation at 48 columns): refused at
its line, not as data (whole tiles compile: examples/concat.py)."""
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def concat_masked(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty([x.size(0), x.size(1) + y.size(1)], dtype=x.dtype, device=x.device)
    for tile0, tile1 in hl.tile(out.size()):
        x_part = hl.load(x, [tile0, tile1], extra_mask=(tile1.index < x.size(1))[None, :])
        y_part = hl.load(y, [tile0, tile1.index - x.size(1)], extra_mask=(tile1.index >= x.size(1))[None, :])  # LINE
        out[tile0, tile1] = torch.where((tile1.index < x.size(1))[None, :], x_part, y_part)
    return out


def inputs(M: int = 64, N1: int = 48, N2: int = 96):
    return (torch.randn(M, N1), torch.randn(M, N2))


def reference(x, y):
    return torch.cat([x, y], dim=1)
