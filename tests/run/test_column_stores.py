"""Column stores into one tile (`stats[tile_m, 0] = mean; stats[tile_m, 1] = var`): the per-core programs
write whole tiles, so the columns a block stores into one tile are gathered into one block store."""

from __future__ import annotations

import pytest

from loom.ir.dialect import WriteOp
from tests.conftest import run_kernel_text

ROW_STATS = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def row_stats(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.zeros([m, 40], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        block = x[tile_m, :].to(torch.float32)
        out[tile_m, 2] = torch.amax(block, dim=1)
        out[tile_m, 0] = torch.sum(block, dim=1)
        out[tile_m, 33] = torch.amin(block, dim=1)
        out[tile_m, -1] = torch.mean(block, dim=1)
    return out


def inputs(M: int = 96, N: int = 256):
    return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)),)


def reference(x):
    out = torch.zeros(x.size(0), 40)
    out[:, 2], out[:, 0], out[:, 33], out[:, 39] = x.amax(1), x.sum(1), x.amin(1), x.mean(1)
    return out
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
def test_columns_of_two_tiles_are_stored_as_two_blocks(tmp_path, arch):
    """Columns 0 and 2 share the first tile, 33 and 39 (`-1`) the second: two writes, every column right."""
    result = run_kernel_text(tmp_path, ROW_STATS, arch, sizes={"M": 100, "N": 300})
    assert result.check.ok, result.check
    frontend = result.compilation.lowering.stages["frontend"]
    assert len([op for op in frontend.walk() if isinstance(op, WriteOp)]) == 2


def test_a_single_column_tensor_keeps_its_plain_column_store(tmp_path):
    text = ROW_STATS.replace("torch.zeros([m, 40]", "torch.zeros([m, 1]").replace(
        "        out[tile_m, 2] = torch.amax(block, dim=1)\n", "").replace(
        "        out[tile_m, 33] = torch.amin(block, dim=1)\n        out[tile_m, -1] = torch.mean(block, dim=1)\n",
        "").replace("out = torch.zeros(x.size(0), 40)\n    out[:, 2], out[:, 0], out[:, 33], out[:, 39] = "
                    "x.amax(1), x.sum(1), x.amin(1), x.mean(1)", "out = x.sum(1, keepdim=True)")
    result = run_kernel_text(tmp_path, text)
    assert result.check.ok, result.check
