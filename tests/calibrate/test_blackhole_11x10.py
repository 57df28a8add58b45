"""The 11x10 Blackhole description (firmware 19.5+) runs the three example kernels and matches torch."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from loom.arch import load_arch
from loom.cli import app

CASES = [
    ("matmul", "M=256,N=256,K=128"),
    ("flash_attention", "B=1,H=2,L=128,D=64"),
    ("flash_decode", "B=2,H=2,L=256,D=64"),
]


def test_11x10_is_the_13x10_chip_with_its_own_grid_and_l1():
    small, big = load_arch("blackhole_p150_11x10"), load_arch("blackhole_p150")
    assert small.grid.dims == [11, 10] and big.grid.dims == [13, 10]
    assert small.clock_ghz == big.clock_ghz and small.dram.banks == big.dram.banks
    assert small.l1.size_bytes == 1536 * 1024
    # the same DRAM endpoints and router torus; the narrower grid uses fewer worker columns
    assert small.dram.bank_positions == big.dram.bank_positions and small.noc.routers == big.noc.routers
    assert small.noc.worker_routers[0] == big.noc.worker_routers[0][:11]


@pytest.mark.parametrize("name, shape", CASES)
def test_examples_run_and_check_on_blackhole_11x10(name, shape):
    result = CliRunner().invoke(app, ["run", f"examples/{name}.py", "--arch", "blackhole_p150_11x10",
                                      "--shape", shape, "--check", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "matches" in result.output or "max |error|" in result.output
