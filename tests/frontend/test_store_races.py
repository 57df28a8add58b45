"""A store that some grid dimension of more than one tile does not index is a race (`loom.frontend.store_races`);
a grid dimension of one tile, or a store indexed through a loop over an outer tile's range, is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom.errors import UnsupportedError
from loom.kernel_file import load_kernel_file
from loom.pipeline import lower

RACE = Path(__file__).resolve().parents[1] / "bad_inputs" / "kernels" / "store_race.py"

NESTED = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def rows_in_blocks(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        for rows in hl.tile(tile_m.begin, tile_m.end):
            out[rows, :] = x[rows, :] * 2
    return out


def inputs():
    return (torch.randn(128, 64),)
'''


def _lower(path: Path):
    source = load_kernel_file(path)
    return lower(source.kernel, source.example_args())


def test_a_grid_dimension_of_one_tile_does_not_race(tmp_path):
    path = tmp_path / "one_tile.py"
    path.write_text(RACE.read_text().replace("block_size=[None, 64]", "block_size=[None, 256]"))
    _lower(path)


def test_a_store_indexed_through_a_loop_over_the_outer_tile_does_not_race(tmp_path):
    path = tmp_path / "nested.py"
    path.write_text(NESTED)
    _lower(path)


def test_a_loop_over_a_fixed_size_outer_tile_is_refused_at_its_line_not_an_internal_error(tmp_path):
    """A loop graph's placeholder named `tile_begin` was taken for Helion's `tile_begin` op (IndexError)."""
    path = tmp_path / "fixed.py"
    path.write_text(NESTED.replace("hl.tile(m)", "hl.tile(m, block_size=64)").replace(
        "hl.tile(tile_m.begin, tile_m.end)", "hl.tile(tile_m.begin, tile_m.end, block_size=32)"))
    with pytest.raises(UnsupportedError, match=r"fixed.py:12: .*block sizes left to the solver"):
        _lower(path)
