"""`hl.split` / `hl.join` of a last dimension reshaped into a pair (Helion's rope) compile as the two
column halves of the tile (`loom.frontend.column_halves`); other reshapes stay refused at their line."""

from __future__ import annotations

import pytest

from loom.errors import UnsupportedError
from tests.conftest import EXAMPLES, run_kernel_text

ROTATE_HALF = (EXAMPLES / "rope_pairs.py").read_text()  # every head in one tile, halves of a reshaped pair


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150"])
def test_split_and_join_of_a_reshaped_pair_are_column_halves(tmp_path, arch):
    outcome = run_kernel_text(tmp_path, ROTATE_HALF, arch, {"B": 1, "H": 4, "S": 96, "D": 128})
    assert outcome.check.ok, outcome.check


def test_interleaved_pairs_stay_refused_at_their_reshape(tmp_path):
    """`reshape([..., half, 2])` splits even and odd columns, not halves: no column block holds them."""
    text = ROTATE_HALF.replace("cos[tile_b, tile_t, :].to(torch.float32).reshape([tile_b, tile_t, 2, half])\n"
                               "                              .permute(0, 1, 3, 2)",
                               "cos[tile_b, tile_t, :].to(torch.float32).reshape([tile_b, tile_t, half, 2])")
    with pytest.raises(UnsupportedError, match=r"kernel.py:19: .*`aten.view.default`"):
        run_kernel_text(tmp_path, text)
