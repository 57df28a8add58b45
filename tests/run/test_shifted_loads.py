"""Loads at shifted tile positions (`hl.load(y, [tile_m, tile_n.index - n1], extra_mask=…)`, Helion's masked
concatenate) and loads of a tile whose positions reach past the tensor: the block's tiles outside the tensor
read as zeros and move nothing (`DramRead.clip`); the model prices the share inside. Shifts that are not whole
tiles, and stores outside the tensor, are refused at their line."""

from __future__ import annotations

import pytest
from xdsl.dialects import memref

from loom.errors import UnsupportedError
from loom.kernel_file import load_kernel_file
from loom.pipeline import lower
from tests.conftest import EXAMPLES, run_kernel_text

CONCAT = (EXAMPLES / "concat.py").read_text()


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
def test_concat_matches_torch_and_reads_each_input_tile_once(tmp_path, arch):
    outcome = run_kernel_text(tmp_path, CONCAT, arch, {"M": 96, "N1": 64, "N2": 130})
    assert outcome.check.ok, outcome.check
    read = outcome.sim.dram_read_bytes_by_tensor
    assert read["x"] == 96 * 64 * 4  # x's tiles once each, the blocks past its 64 columns moving nothing
    assert read["y"] == 96 * 160 * 4  # y's 130 columns held in 5 whole tiles


def test_the_share_inside_each_tensor_is_recorded_for_the_model():
    source = load_kernel_file(EXAMPLES / "concat.py")
    module = lower(source.kernel, source.example_args({"M": 64, "N1": 128, "N2": 256}), stage="frontend").module
    shares = {op.source.name_hint: [a.data for a in op.attributes["loom.clip"]]
              for op in module.walk() if isinstance(op, memref.SubviewOp) and "loom.clip" in op.attributes}
    assert shares == {"x": [1, 3], "y": [2, 3]}  # of the 384 positions tile_n runs over


def test_a_shift_that_is_not_whole_tiles_is_refused_at_its_line(tmp_path):
    with pytest.raises(UnsupportedError, match=r"kernel.py:20: .*shifted by -100 \(`tile.index - 100`\)"):
        run_kernel_text(tmp_path, CONCAT, sizes={"M": 64, "N1": 100, "N2": 60})


STORE_PAST_THE_END = """
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def widen(x: torch.Tensor, wide: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile(wide.size()):
        out[tile_m, tile_n] = wide[tile_m, tile_n]
    return out


def inputs():
    return (torch.randn(64, 64), torch.randn(64, 128))


def reference(x, wide):
    return wide[:, :64]
"""


def test_a_store_outside_the_tensor_is_refused_at_its_line(tmp_path):
    with pytest.raises(UnsupportedError, match=r"kernel.py:11: .*a store to tile positions outside the tensor"):
        run_kernel_text(tmp_path, STORE_PAST_THE_END)


def test_other_indices_computed_from_positions_stay_refused_at_their_line(tmp_path):
    text = CONCAT.replace("hl.load(y, [tile_m, cols - n1]", "hl.load(y, [tile_m, cols * 2 - n1]")
    with pytest.raises(UnsupportedError, match=r"kernel.py:20: .*computed from tile positions \(`tile.index`\)"):
        run_kernel_text(tmp_path, text)


MASK_ONLY = """
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def shifted(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n + 32], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n + 32]):
        cols = tile_n.index
        out[tile_m, tile_n] = hl.load(x, [tile_m, cols - 32], extra_mask=(cols >= 64)[None, :])
    return out


def inputs():
    return (torch.randn(64, 128, generator=torch.Generator().manual_seed(0)),)


def reference(x):
    shifted = torch.cat([torch.zeros(x.shape[0], 32), x], 1)
    shifted[:, :64] = 0
    return shifted
"""


def test_a_loads_extra_mask_zeroes_what_it_leaves_out(tmp_path):
    """Helion's load returns 0 where `extra_mask` does not hold (here columns 32-63, inside x)."""
    outcome = run_kernel_text(tmp_path, MASK_ONLY)
    assert outcome.check.ok, outcome.check


def test_a_fixed_block_size_clips_as_the_solvers_does(tmp_path):
    text = MASK_ONLY.replace("hl.tile([m, n + 32])", "hl.tile([m, n + 32], block_size=[32, 32])").replace(
        ", extra_mask=(cols >= 64)[None, :]", "").replace("    shifted[:, :64] = 0\n", "")
    outcome = run_kernel_text(tmp_path, text)
    assert outcome.check.ok, outcome.check
