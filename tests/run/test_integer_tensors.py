"""Integer tensors as data: an int64 argument (labels, indices) is held as int32 tiles, as TTNN holds it;
`.to()` converts between int32 and float tiles as torch does; a position compared with such data
(`tile.index == label[:, None]`) is a mask whose bound is the data."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import loom
from loom.backend import program as P
from loom.errors import UnsupportedError
from loom.sim.compute import apply
from tests.conftest import ROOT, run_kernel_text

_TRUNCATE = '''
import torch, helion, helion.language as hl

@helion.kernel(static_shapes=True)
def truncate(x: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.size(), dtype=torch.int32, device=x.device)
    for tile_m, tile_n in hl.tile(x.size()):
        out[tile_m, tile_n] = (x[tile_m, tile_n] * 3.0 + k[tile_m, tile_n].to(torch.float32)).to(torch.int32)
    return out

def inputs(M: int = 64, N: int = 96):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(M, N, generator=g), torch.randint(-5, 5, (M, N), generator=g))

def reference(x, k):
    return (x * 3.0 + k.float()).to(torch.int32)
'''


def test_a_float_tile_converted_to_int32_truncates_as_torch_does(tmp_path):
    outcome = run_kernel_text(tmp_path, _TRUNCATE)
    assert outcome.check.ok and outcome.check.max_abs_error == 0, outcome.check


def test_arithmetic_on_integer_tiles_is_refused_at_the_users_line(tmp_path):
    text = _TRUNCATE.replace("(x[tile_m, tile_n] * 3.0 + k[tile_m, tile_n].to(torch.float32)).to(torch.int32)",
                             "k[tile_m, tile_n] + k[tile_m, tile_n]")
    with pytest.raises(UnsupportedError, match="on integer tiles is not supported yet") as err:
        run_kernel_text(tmp_path, text)
    assert "k[tile_m, tile_n] + k[tile_m, tile_n]" in str(err.value)


def test_int64_labels_are_int32_tiles_and_the_mask_takes_them_as_its_bound():
    source = loom.kernel_file.load_kernel_file(ROOT / "examples" / "cross_entropy.py")
    text = str(loom.lower(source.kernel, source.example_args({"N": 64, "V": 256}), stage="frontend").module)
    assert "%labels: memref<64x1xi32>" in text  # a column of int32, not int64
    assert "loom.position_mask" in text and " bound " in text and "arith.sitofp" in text


def test_integers_a_float32_cannot_hold_exactly_are_refused(tmp_path):
    text = _TRUNCATE.replace("torch.randint(-5, 5, (M, N), generator=g)", "torch.full((M, N), 2**25)")
    with pytest.raises(UnsupportedError, match=r"argument 'k' holds integers up to 33554432"):
        run_kernel_text(tmp_path, text)


def test_a_mask_with_a_data_bound_keeps_the_column_each_row_names():
    """Rows 0..31 at columns 64..95: keep column == label[row] (label broadcast down the columns)."""
    labels = np.zeros((32, 32), dtype=np.float32)
    labels[:, 0] = np.arange(32) % 4 + 64  # rows name columns 64..67; other columns of the tile are padding
    x = np.ones((32, 32), dtype=np.float32)
    values = {"x": x, "label": labels}
    out = {}
    mask = P.Mask(P.Ref("x"), P.Ref("y"), 0.0, row_start=0, col_start=64, keep=((0, 1, 0), (0, -1, 0)),
                  data=P.Ref("label"), data_bcast="col", data_coeffs=(-1, 1))
    apply(mask, lambda r, o=False: values[r.name], lambda r, m: out.setdefault(r.name, m), lambda r: (1, 1),
          (32, 32), {})
    kept = [tuple(np.nonzero(row)[0]) for row in out["y"]]
    assert kept == [(r % 4,) for r in range(32)]
    broadcast_wrong = dataclasses.replace(mask, data_bcast="row")  # the labels read along the first row
    out.clear()
    apply(broadcast_wrong, lambda r, o=False: values[r.name], lambda r, m: out.setdefault(r.name, m),
          lambda r: (1, 1), (32, 32), {})
    assert [tuple(np.nonzero(row)[0]) for row in out["y"]] != kept
