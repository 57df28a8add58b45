"""One row of a matrix at a position computed from a tile (`y[tile_m.begin, :]`), and rank-1 values
broadcast down rows where the per-core programs hold them as columns (a column sum, `x.sum(0)`, used as
`acc[None, :]` or by torch's implicit broadcasting). Found by Helion's backward kernels (rms_norm_bwd,
layer_norm_bwd): before, the row load failed in the simulator, the row store wrote a column, silently, and
a carried accumulator in a loop over an enclosing tile failed in stage 4. A tile's `.id` (its index,
begin // block size) indexes like its start (it was refused as not affine)."""

from __future__ import annotations

import pytest
import torch

from loom.errors import UnsupportedError
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run

HEADER = '''
import torch

import helion
import helion.language as hl


def inputs(M: int = 256, N: int = 128):
    gen = torch.Generator().manual_seed(0)
    return tuple(torch.randn(M, N, generator=gen) for _ in range(ARGS))
'''

ROW_AT_BEGIN = HEADER.replace("ARGS", "2") + '''

@helion.kernel(static_shapes=True)
def add_first_row(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        out[tile_m, :] = x[tile_m, :] + y[tile_m.begin, :]
    return out
'''

ROW_STORE = HEADER.replace("ARGS", "1") + '''

@helion.kernel(static_shapes=True)
def column_sums_per_block(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = x.new_zeros([m, n])
    for tile_m in hl.tile(m):
        out[tile_m.begin, :] = x[tile_m, :].sum(0)
    return out
'''

BATCH_ID = HEADER.replace("ARGS", "1").replace("randn(M, N,", "randn(3, M, N,") + '''

@helion.kernel(static_shapes=True)
def doubled(x: torch.Tensor) -> torch.Tensor:
    b, m, n = x.size()
    out = torch.empty_like(x)
    for tile_b, tile_m in hl.tile([b, m], block_size=[1, None]):
        out[tile_b.id, tile_m, :] = x[tile_b.id, tile_m, :] * 2.0
    return out
'''

BLOCK_COLUMN_SUMS = HEADER.replace("ARGS", "1") + '''

@helion.kernel(static_shapes=True)
def scale_by_block_sums(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        acc = hl.zeros([n], dtype=torch.float32)
        for sub in hl.tile(tile_m.begin, tile_m.end):
            acc += x[sub, :].sum(0)
        out[tile_m, :] = x[tile_m, :] * BROADCAST
    return out
'''


def _compiled_run(tmp_path, text: str):
    path = tmp_path / "kernel.py"
    path.write_text(text)
    source = load_kernel_file(path)
    args = source.example_args()
    compilation = compile_kernel(source.kernel, args, "wormhole_n150")
    outputs = run(compilation, args, functional=True).sim.outputs
    return compilation.schedule.block_sizes, args, torch.from_numpy(outputs["out"])


def test_a_row_at_a_tile_start_is_read_as_a_row(tmp_path):
    blocks, (x, y), out = _compiled_run(tmp_path, ROW_AT_BEGIN)
    block = blocks["tile_m"]
    torch.testing.assert_close(out, x + y[::block].repeat_interleave(block, 0))


def test_a_row_stored_at_a_tile_start_is_refused_at_its_line(tmp_path):
    with pytest.raises(UnsupportedError, match="storing one row of a matrix") as caught:
        _compiled_run(tmp_path, ROW_STORE)
    assert "out[tile_m.begin, :] = x[tile_m, :].sum(0)" in str(caught.value)


@pytest.mark.parametrize("broadcast", ["acc[None, :]", "acc"])
def test_column_sums_carried_over_an_enclosing_tile_broadcast_down_rows(tmp_path, broadcast):
    blocks, (x,), out = _compiled_run(tmp_path, BLOCK_COLUMN_SUMS.replace("BROADCAST", broadcast))
    block = blocks["tile_m"]
    sums = x.reshape(-1, block, x.shape[1]).sum(1).repeat_interleave(block, 0)
    torch.testing.assert_close(out, x * sums, rtol=1e-4, atol=1e-4)


def test_a_batch_tile_id_indexes_its_slice(tmp_path):
    _, (x,), out = _compiled_run(tmp_path, BATCH_ID)
    torch.testing.assert_close(out, x * 2.0)
