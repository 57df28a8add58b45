"""The forms Mamba's and gated-delta-net's kernels are written in (issue 17): tiles that run across a point-indexed
dimension (`x[b.begin, tile_t, h.begin, :]`, held permuted: `loom.frontend.layouts`), one row, column or value
at a position off a tile's edge (`loom.frontend.picks`), tiles shifted by a grid index (`tile_k.index +
tile_c.begin * chunk`), index expressions Helion keeps whole (`min(t.begin + 64, n) - 1`, `t.id`:
`loom.frontend.scalars`) and a loop to `(tile_m.id + 1) * block_m`. Each matches torch in loom.sim; what
cannot be compiled is refused at its line."""

from __future__ import annotations

import numpy as np
import pytest

from loom.errors import UnsupportedError
from loom.kernel_file import load_kernel_file
from loom.pipeline import lower
from tests.conftest import run_kernel_text

HEADS_BETWEEN = """
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def head_scale(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    batch, seqlen, heads, dim = x.size()
    out = torch.empty_like(x)
    for tile_b, tile_h, tile_t, tile_d in hl.tile([batch, heads, seqlen, dim], block_size=[1, 1, None, None]):
        out[tile_b.begin, tile_t, tile_h.begin, tile_d] = x[tile_b.begin, tile_t, tile_h.begin, tile_d] * 2.0 + \\
            w[tile_h.begin, tile_d][None, :]
    return out


def inputs():
    gen = torch.Generator().manual_seed(0)
    return torch.randn(2, 96, 3, 64, generator=gen), torch.randn(3, 64, generator=gen)


def reference(x, w):
    return x * 2.0 + w[None, None, :, :]
"""

PICKS = """
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def picks(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        column = x[tile_m, 37]  # one column off a tile's edge
        row = x[5, tile_n]  # one row off a tile's edge
        value = s[3, 40]  # one value
        out[tile_m, tile_n] = x[tile_m, tile_n] + column[:, None] * row[None, :] + value
    return out


def inputs():
    gen = torch.Generator().manual_seed(0)
    return torch.randn(64, 96, generator=gen), torch.randn(8, 64, generator=gen)


def reference(x, s):
    return x + x[:, 37:38] * x[5:6, :] + s[3, 40]
"""

GRID_PICKS = """
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def gated(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    batch, seqlen, heads, dim = x.size()
    out = torch.empty_like(x)
    for tile_b, tile_h in hl.tile([batch, heads], block_size=[1, 1]):
        for tile_t in hl.tile(seqlen, block_size=64):
            last = min(tile_t.begin + 64, seqlen) - 1
            gate = torch.exp(g[tile_b.id, last, tile_h.id] - g[tile_b.id, tile_t, tile_h.id])
            kept = torch.where(tile_t.index < seqlen, gate, 0.0)
            out[tile_b.id, tile_t, tile_h.id, :] = x[tile_b.id, tile_t, tile_h.id, :] * kept[:, None]
    return out


def inputs():
    gen = torch.Generator().manual_seed(0)
    return torch.randn(2, 128, 40, 32, generator=gen), torch.randn(2, 128, 40, generator=gen)


def reference(x, g):
    last = g.reshape(2, 2, 64, 40)[:, :, -1:, :].expand(2, 2, 64, 40).reshape(2, 128, 40)
    return x * torch.exp(last - g)[..., None]
"""


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
def test_tiles_across_a_point_indexed_dimension_are_held_permuted_and_match_torch(tmp_path, arch):
    outcome = run_kernel_text(tmp_path, HEADS_BETWEEN, arch)
    assert outcome.check.ok, outcome.check
    tensors = {t.name: t for t in outcome.program.tensors}
    assert tensors["x"].order == tensors["out"].order == (0, 2, 1, 3)
    assert tensors["x"].shape[:2] == (2, 3) and tensors["w"].order is None  # (rows padded to whole blocks)


def test_the_permuted_layout_is_recorded_in_the_symbolic_ir(tmp_path):
    (tmp_path / "kernel.py").write_text(HEADS_BETWEEN)
    source = load_kernel_file(tmp_path / "kernel.py")
    text = str(lower(source.kernel, source.example_args(), stage="frontend").module)
    assert "loom.layouts = {x = array<i64: 0, 2, 1, 3>, out = array<i64: 0, 2, 1, 3>}" in text
    assert "memref<2x3x96x64xf32>" in text


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150"])
def test_a_row_a_column_and_a_value_off_tile_edges_are_picked_exactly(tmp_path, arch):
    outcome = run_kernel_text(tmp_path, PICKS, arch)
    assert outcome.check.ok, outcome.check
    assert outcome.check.max_abs_error < 1e-5  # masked and summed with zeros: exact in fp32


def test_positions_from_a_tiles_id_and_a_min_are_picked_from_the_tiles_they_reach(tmp_path):
    outcome = run_kernel_text(tmp_path, GRID_PICKS)  # 40 heads: `tile_h.id` reaches two tiles of columns;
    # `min(…) - 1` is 31 past `tile_t.begin + 32`: one tile at a place that moves with `tile_t`
    assert outcome.check.ok, outcome.check


def test_a_pick_over_more_tiles_than_a_few_is_refused_at_its_line(tmp_path):
    text = PICKS.replace("x[tile_m, 37]", "x[tile_m, tile_n.begin // 2]").replace("(64, 96,", "(64, 1024,")
    with pytest.raises(UnsupportedError, match=r"kernel.py:\d+: .*off a tile's edge .* 0 to 496, over 16 tiles"):
        run_kernel_text(tmp_path, text)


def test_a_min_whose_least_operand_changes_is_refused_at_its_line(tmp_path):
    text = GRID_PICKS.replace("min(tile_t.begin + 64, seqlen) - 1", "min(tile_t.begin + 100, seqlen) - 1")
    with pytest.raises(UnsupportedError, match=r"kernel.py:\d+: .*least operand, which is not the same one"):
        run_kernel_text(tmp_path, text)


def test_a_shift_by_a_grid_index_past_the_tensor_is_refused(tmp_path):
    text = SHIFTED.replace("tile_k.index + tile_c.begin * chunk", "tile_k.index + tile_c.begin * chunk + 32")
    with pytest.raises(UnsupportedError, match=r"kernel.py:\d+: .*shifted by a scalar reach 32 to 288"):
        run_kernel_text(tmp_path, text)


SHIFTED = """
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def chunk_scale(x: torch.Tensor) -> torch.Tensor:
    seqlen, dim = x.size()
    chunk = 64
    chunks = seqlen // chunk
    out = torch.empty([chunks, chunk, dim], dtype=x.dtype, device=x.device)
    for tile_c, tile_d in hl.tile([chunks, dim], block_size=[1, None]):
        for tile_k in hl.tile(chunk):
            out[tile_c.begin, tile_k, tile_d] = x[tile_k.index + tile_c.begin * chunk, tile_d] * 2.0
    return out


def inputs():
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(256, 64, generator=gen),)


def reference(x):
    return x.reshape(-1, 64, x.shape[1]) * 2.0
"""


def test_a_tile_shifted_by_a_grid_index_reads_its_chunk(tmp_path):
    outcome = run_kernel_text(tmp_path, SHIFTED)
    assert outcome.check.ok, outcome.check
    assert np.isfinite(outcome.sim.cycles)


LOWER_ROWS = """
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def lower_product(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    d = y.size(1)
    block_m = hl.register_block_size(m)
    out = torch.empty([m, d], dtype=torch.float32, device=x.device)
    for tile_m, tile_d in hl.tile([m, d], block_size=[block_m, None]):
        acc = hl.zeros([tile_m, tile_d], dtype=torch.float32)
        for tile_k in hl.tile(0, (tile_m.id + 1) * block_m):
            below = tile_m.index[:, None] >= tile_k.index[None, :]
            acc = hl.dot(torch.where(below, x[tile_m, tile_k], 0.0), y[tile_k, tile_d], acc=acc)
        out[tile_m, tile_d] = acc
    return out


def inputs():
    gen = torch.Generator().manual_seed(0)
    return torch.randn(96, 96, generator=gen), torch.randn(96, 64, generator=gen)


def reference(x, y):
    return torch.tril(x) @ y
"""


def test_a_loop_to_the_next_tile_id_times_its_block_ends_at_the_tile_whose_blocks_tile_it(tmp_path):
    outcome = run_kernel_text(tmp_path, LOWER_ROWS)  # 96 rows: blocks of 32 or 96 (64 would leave a tail of 32,
    assert outcome.check.ok, outcome.check  # where `(id + 1) * 64` = 128 is not the tile's end, 96)
    assert outcome.compilation.ranked[0].values["tile_m"] in (32, 96)


@pytest.mark.parametrize("rows", ["tile_k.index + tile_c.begin * chunk", "tile_k"])
def test_a_tail_over_real_data_is_refused_at_its_loop(tmp_path, rows):
    text = SHIFTED.replace("chunk = 64", "chunk = 96").replace("hl.tile(chunk)", "hl.tile(chunk, block_size=64)")
    text = text.replace("x[tile_k.index + tile_c.begin * chunk, tile_d]", f"x[{rows}, tile_d]")
    text = text.replace("torch.randn(256, 64", "torch.randn(384, 64")
    with pytest.raises(UnsupportedError, match=r"kernel.py:\d+: .*`tile_k` runs over 96 positions in blocks of 64, "
                                               r"leaving a tail of 32 where positions past its extent are real data"):
        run_kernel_text(tmp_path, text)
