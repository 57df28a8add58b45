"""`loom.bench.roofline`: the bytes a kernel must move and the fewest cycles they and its flops allow."""

from __future__ import annotations

import pytest
import torch

from loom.arch import load_arch
from loom.bench.roofline import dram_bytes, roofline_cycles


def test_bytes_count_each_argument_once_and_each_output_at_its_real_size():
    args = (torch.zeros(64, 128, dtype=torch.bfloat16), torch.zeros(128, dtype=torch.float32), 1e-5)
    assert dram_bytes(args, {"out": ((64, 128), "bfloat16"), "rstd": ((64, 1), "float32")}) == \
        64 * 128 * 2 + 128 * 4 + 64 * 128 * 2 + 64 * 4


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150"])
def test_the_roof_is_the_slower_of_dram_and_the_matrix_engine(arch):
    chip = load_arch(arch)
    moved = 3 * 4096 * 4096 * 2
    dram = moved / chip.dram.bandwidth_bytes_per_cycle
    assert roofline_cycles(chip, moved) == dram
    small, large = 2.0 * 64 ** 3, 2.0 * 4096 ** 3  # a 64-cube GEMM is DRAM-bound, a 4096-cube one compute-bound
    assert roofline_cycles(chip, moved, small) == dram
    assert roofline_cycles(chip, moved, large) > dram
