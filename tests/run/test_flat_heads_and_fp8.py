"""A grid over batch x heads split back into its two indices (`b = bh // heads; h = bh % heads`, `heads` a
scalar argument), an output sized by scalar arguments, and casts to fp8 inside the loop (Helion's
fp8_attention writes all three)."""

from __future__ import annotations

import pytest

from loom.errors import LoomError
from tests.conftest import run_kernel_text

SPLIT_HEADS = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def split_heads(x: torch.Tensor, batch: int, heads: int) -> torch.Tensor:
    bh_count, seq, dim = x.size()
    out = torch.empty([batch, heads, seq, dim], dtype=x.dtype, device=x.device)
    for bh in hl.grid(bh_count):
        b = bh // heads
        h = bh % heads
        for tile_m in hl.tile(seq):
            out[b, h, tile_m, :] = x[bh, tile_m, :] * 2.0
    return out


def inputs(B: int = 2, H: int = 3, L: int = 64, D: int = 64):
    return (torch.randn(B * H, L, D, generator=torch.Generator().manual_seed(0)), B, H)


def reference(x, batch, heads):
    return (x * 2.0).reshape(batch, heads, x.size(1), x.size(2))
'''

TO_FP8 = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def to_fp8(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=torch.FP8, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        y = x[tile_m, tile_n] * 3.0
        out[tile_m, tile_n] = y.to(torch.FP8).to(torch.float32) + 0.5
    return out


def inputs(M: int = 64, N: int = 96):
    return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)) * 40,)


def reference(x):
    return ((x * 3.0).to(torch.FP8).float() + 0.5).to(torch.FP8)
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150"])
def test_a_flat_batch_head_grid_writes_each_head_of_a_tensor_sized_by_scalar_arguments(tmp_path, arch):
    result = run_kernel_text(tmp_path, SPLIT_HEADS, arch)
    assert result.check.ok and result.check.max_abs_error == 0, result.check
    grid = next(op for op in result.compilation.lowering.stages["frontend"].walk() if "loom.grid" in op.attributes)
    labels = [label.data for label in grid.attributes["loom.grid"].data]
    assert labels[:2] == ["block_0_group", "block_0_in_group"], labels  # b = bh // heads, h = bh % heads


def test_a_divisor_that_does_not_divide_the_grid_is_refused_at_the_line(tmp_path):
    with pytest.raises(LoomError) as err:
        run_kernel_text(tmp_path, SPLIT_HEADS.replace("out[b, h, tile_m, :]", "out[b, h % 2, tile_m, :]"))
    assert "kernel.py:" in str(err.value) and "affine" in str(err.value)


@pytest.mark.parametrize("fp8", ["float8_e4m3fn", "float8_e5m2"])
def test_a_cast_to_fp8_in_the_loop_rounds_as_torch_does(tmp_path, fp8):
    """Rounded once, from the fp32 value, to the fp8 type's values (held in bf16, which holds them exactly):
    every element equals torch's, saturation at the type's largest value included (x up to about 150 x 3)."""
    result = run_kernel_text(tmp_path, TO_FP8.replace("FP8", fp8))
    assert result.check.max_abs_error == 0, result.check
