"""`hl.split` / `hl.join` of a last dimension reshaped into a pair (Helion's rope) compile as the two
column halves of the tile (`loom.frontend.column_halves`); other reshapes stay refused at their line."""

from __future__ import annotations

import pytest

from loom.errors import UnsupportedError
from tests.conftest import run_kernel_text

ROTATE_HALF = '''
import torch
import helion
import helion.language as hl


@helion.kernel
def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    batch, heads, seq, dim = x.size()
    half = dim // 2
    out = torch.empty_like(x)
    for tile_b, tile_t in hl.tile([batch, seq]):
        c_lo, c_hi = hl.split(cos[tile_b, tile_t, :].to(torch.float32).reshape([tile_b, tile_t, 2, half])
                              .permute(0, 1, 3, 2))
        s_lo, s_hi = hl.split(sin[tile_b, tile_t, :].to(torch.float32).reshape([tile_b, tile_t, 2, half])
                              .permute(0, 1, 3, 2))
        lo, hi = hl.split(x[tile_b, :, tile_t, :].to(torch.float32).reshape([tile_b, heads, tile_t, 2, half])
                          .permute(0, 1, 2, 4, 3))
        lo_out = lo * c_lo[:, None, :, :] - hi * s_lo[:, None, :, :]
        hi_out = hi * c_hi[:, None, :, :] + lo * s_hi[:, None, :, :]
        out[tile_b, :, tile_t, :] = (hl.join(lo_out, hi_out).permute(0, 1, 2, 4, 3)
                                     .reshape([tile_b, heads, tile_t, dim]).to(out.dtype))
    return out


def inputs(B: int = 2, H: int = 4, S: int = 64, D: int = 128):
    g = torch.Generator().manual_seed(0)
    angles = torch.randn(B, S, D, generator=g)
    return torch.randn(B, H, S, D, generator=g).half(), torch.cos(angles).half(), torch.sin(angles).half()


def reference(x, cos, sin):
    h = x.shape[-1] // 2
    x, c, s = x.float(), cos.float()[:, None], sin.float()[:, None]
    lo, hi = x[..., :h], x[..., h:]
    return torch.cat([lo * c[..., :h] - hi * s[..., :h], hi * c[..., h:] + lo * s[..., h:]], -1).half()
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150"])
def test_split_and_join_of_a_reshaped_pair_are_column_halves(tmp_path, arch):
    outcome = run_kernel_text(tmp_path, ROTATE_HALF, arch)
    assert outcome.check.ok, outcome.check


def test_interleaved_pairs_stay_refused_at_their_reshape(tmp_path):
    """`reshape([..., half, 2])` splits even and odd columns, not halves: no column block holds them."""
    text = ROTATE_HALF.replace("cos[tile_b, tile_t, :].to(torch.float32).reshape([tile_b, tile_t, 2, half])\n"
                               "                              .permute(0, 1, 3, 2)",
                               "cos[tile_b, tile_t, :].to(torch.float32).reshape([tile_b, tile_t, half, 2])")
    with pytest.raises(UnsupportedError, match=r"kernel.py:13: .*`aten.view.default`"):
        run_kernel_text(tmp_path, text)
