"""Counts of positions (`(tile_n.index < n).to(torch.int32).sum()`, Helion's Welford example): one number per
block, which takes the shape of the vector it meets."""

from __future__ import annotations

import pytest

from loom.errors import UnsupportedError
from tests.conftest import run_kernel_text

CHUNK_MEANS = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def chunk_means(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        total = hl.zeros([tile_m], dtype=torch.float32)
        seen = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            real = tile_n.index < n
            count = real.to(torch.int32).sum()
            total = total + torch.sum(x[tile_m, tile_n], dim=-1)
            seen = seen + count
        out[tile_m] = total / seen
    return out


def inputs(M: int = 64, N: int = 1000):
    return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)),)


def reference(x):
    return x.mean(1)
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150"])
@pytest.mark.parametrize("n", [1000, 1024])
def test_a_count_of_real_columns_divides_the_row_sums(tmp_path, arch, n):
    """With a tail (1000 columns) the last block counts only its real columns: a padded count would be 1024."""
    result = run_kernel_text(tmp_path, CHUNK_MEANS, arch, sizes={"M": 64, "N": n})
    assert result.check.ok, result.check


def test_a_count_over_two_blocks_is_refused_at_the_kernel(tmp_path):
    """Helion's own compiler refuses a sum over both dimensions of a tile (NotImplementedError): a refusal at
    the kernel, not a Loom internal error."""
    text = CHUNK_MEANS.replace("real = tile_n.index < n", "real = tile_m.index[:, None] >= tile_n.index[None, :]")
    with pytest.raises(UnsupportedError, match="Helion rejected the kernel: NotImplementedError") as err:
        run_kernel_text(tmp_path, text)
    assert err.value.location is not None and "def chunk_means" in err.value.location.code
