"""A value read at one position (`s[tile_b.begin, 0, 0]`: a 0-d tensor in Helion's trace) is held as a tile of
one value; elementwise ops on it (`torch.exp(v * 0.5) - 1.0`) compute on that tile and broadcast it over the
blocks it meets. Was an internal error in stage 'frontend' (found by Helion's mamba2_chunk_state example)."""

from __future__ import annotations

from tests.conftest import run_kernel_text

ONE_VALUE_SCALE = """
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def batch_scale(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    batch, m, n = x.size()
    out = torch.empty_like(x)
    for tile_b, tile_m, tile_n in hl.tile([batch, m, n], block_size=[1, None, None]):
        scale = torch.exp(s[tile_b.begin, 0, 0].to(torch.float32) * 0.5) - 1.0
        out[tile_b.begin, tile_m, tile_n] = (x[tile_b.begin, tile_m, tile_n] * scale).to(x.dtype)
    return out


def inputs():
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(3, 64, 96, generator=gen), torch.randn(3, 2, 5, generator=gen))


def reference(x, s):
    return x * (torch.exp(s[:, 0, 0] * 0.5) - 1.0)[:, None, None]
"""


def test_elementwise_ops_on_a_value_read_at_one_position_match_torch(tmp_path):
    outcome = run_kernel_text(tmp_path, ONE_VALUE_SCALE)
    assert outcome.check.ok, outcome.check
