"""Forms of Helion's token-loss kernels (grpo_loss, cross_entropy): one value per batch slice
(`advantages[tile_b]`, a tile that also indexes leading dimensions stays a batch block), `torch.where` between
two tiles on a condition that compares tile positions with data (`tile_v.index == label`), a leading part of an
argument made on the host (`logits[:, :-1, :]`), and one element per row of a flat view picked by data
(`hl.load(logits_flat, [tile_n.index * v + labels])`)."""

from __future__ import annotations

import pytest

from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run
from tests.conftest import EXAMPLES, run_kernel_text

HEADER = '''
import torch
import helion
import helion.language as hl
'''

ONE_HOT_GRAD = HEADER + '''

@helion.kernel(static_shapes=True)
def one_hot_grad(logits: torch.Tensor, labels: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    b, length, v = logits.shape
    logits_fwd = logits[:, :-1, :]
    grad = torch.zeros_like(logits)
    for tile_b, tile_l in hl.tile([b, length - 1]):
        label = labels[tile_b, tile_l]
        g = scale[tile_b, tile_l]
        for tile_v in hl.tile(v):
            p = torch.sigmoid(logits_fwd[tile_b, tile_l, tile_v])
            sel = tile_v.index[None, None, :] == label[:, :, None]
            grad[tile_b, tile_l, tile_v] = torch.where(sel, g[:, :, None] * (1 - p), -g[:, :, None] * p)
    return grad


def inputs(B: int = 2, L: int = 64, V: int = 80):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(B, L + 1, V, generator=g), torch.randint(0, V, (B, L), generator=g),
            torch.randn(B, L, generator=g))


def reference(logits, labels, scale):
    p = torch.sigmoid(logits[:, :-1, :])
    sel = torch.arange(logits.shape[-1])[None, None, :] == labels[:, :, None]
    grad = torch.zeros_like(logits)
    grad[:, :-1, :] = torch.where(sel, scale[:, :, None] * (1 - p), -scale[:, :, None] * p)
    return grad
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150"])
def test_one_value_per_batch_slice_and_a_leading_part_of_an_argument(arch):
    """examples/token_loss.py (issue 17's examples run it on every architecture): here, how it is laid out."""
    source = load_kernel_file(EXAMPLES / "token_loss.py")
    args = source.example_args({"B": 3, "L": 64, "V": 96})
    outcome = run(compile_kernel(source.kernel, args, arch), args, reference=source.reference)
    assert outcome.check.ok, outcome.check
    tensors = {t.name: t for t in outcome.program.tensors}
    assert tensors["advantages"].vector == "scalar"  # a 1 x 1 matrix per value: slices never share a tile
    assert tensors["scored"].shape[1] >= 65  # `logits[:, :-1, :]` is read as `logits` (65 positions, padded)


def test_where_between_two_tiles_on_positions_compared_with_data(tmp_path):
    outcome = run_kernel_text(tmp_path, ONE_HOT_GRAD)
    assert outcome.check.ok, outcome.check


def test_a_leading_part_of_one_batch_is_not_taken_for_a_reshape():
    """With B = 1, `logits[:, :-1, :]` is contiguous, yet holds fewer elements than `logits`: a part of it,
    not a reshape (its data is the argument's, not the argument's reshaped)."""
    source = load_kernel_file(EXAMPLES / "token_loss.py")
    args = source.example_args({"B": 1, "L": 64, "V": 96})
    outcome = run(compile_kernel(source.kernel, args, "wormhole_n150"), args, reference=source.reference)
    assert outcome.check.ok, outcome.check


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
def test_one_element_per_row_of_a_flat_view_picked_by_data(arch):
    """examples/cross_entropy_rows.py, Helion's cross_entropy form, with tails (100 rows of 200)."""
    source = load_kernel_file(EXAMPLES / "cross_entropy_rows.py")
    args = source.example_args({"N": 100, "V": 200})
    outcome = run(compile_kernel(source.kernel, args, arch), args, reference=source.reference)
    assert outcome.check.ok, outcome.check
    assert [t.name for t in outcome.program.tensors if t.kind == "input"] == ["logits", "labels"]  # one read of logits
