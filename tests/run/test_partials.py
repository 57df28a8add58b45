"""Per-tile partials (`loom.frontend.partials`): a tensor with one slice per tile of a grid loop, sized by that
loop's block (`partial[rows.id, :] = acc`, `partial.sum(0)` on the host), as Helion's norm backward kernels
write it. The device lays it out for the smallest block; the host code runs with the block the device ran with."""

from __future__ import annotations

import pytest

from loom.errors import UnsupportedError
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run
from tests.conftest import EXAMPLES, run_kernel_text

SHAPE = {"M": 200, "N": 96}


@pytest.mark.parametrize("rows", [32, 64, 128, 224])
def test_the_host_code_reads_the_slices_of_the_chosen_block(rows):
    """The weight gradient sums cdiv(200, rows) partial rows: with Helion's eager block (the whole dimension)
    the host would read one, and the sum would miss the others."""
    source = load_kernel_file(EXAMPLES / "rms_norm_backward.py")
    args = source.example_args(SHAPE)
    compilation = compile_kernel(source.kernel, args, "wormhole_n150", block_sizes={"rows": rows, "tile_m": 32})
    assert compilation.schedule.block_sizes["rows"] == rows
    outcome = run(compilation, args, reference=source.reference)
    assert outcome.check.ok, outcome.check
    partial = next(t for t in outcome.program.tensors if t.name == "partial")
    assert partial.shape[0] == 7  # laid out for the smallest block: cdiv(200, 32) slices


LOADED_BACK = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True, ignore_warnings=[helion.exc.TensorOperationInWrapper])
def col_sums(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    row_block = hl.register_block_size(m)
    partial = torch.empty([(m + row_block - 1) // row_block, n], dtype=torch.float32, device=x.device)
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for rows in hl.tile(m, block_size=row_block):
        acc = torch.zeros([n], dtype=torch.float32, device=x.device)
        for tile_m in hl.tile(rows.begin, rows.end):
            acc += x[tile_m, :].to(torch.float32).sum(0)
        partial[rows.id, :] = acc
        out[rows, :] = x[rows, :].to(torch.float32) + partial[0, :][None, :]
    return out


def inputs(M: int = 64, N: int = 64):
    return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)),)


def reference(x):
    return x
'''


def test_a_partials_tensor_read_at_another_index_is_refused_at_its_line(tmp_path):
    with pytest.raises(UnsupportedError) as err:
        run_kernel_text(tmp_path, LOADED_BACK)
    assert "partial" in str(err.value) and "symbolic" in str(err.value)
    assert err.value.location is not None
