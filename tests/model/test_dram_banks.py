"""DRAM banks under the blocks of one access: where every core's block starts at the same column and
the tensor's rows are a multiple of the banks apart (tile i in bank i mod B), narrow blocks share a
few banks; the model bounds such a stage by those banks, as the simulator serves them."""

from __future__ import annotations

import pytest

import loom
from loom.arch import load_arch
from loom.kernel_file import load_kernel_file
from loom.mapping.candidates import enumerate_candidates
from loom.model import expr as E
from loom.model.constraints import build_model
from loom.model.heg import Pipe, Primitive, nodes
from loom.model.latency import LatencyModel
from tests.conftest import EXAMPLES

GEMM = load_kernel_file(EXAMPLES / "matmul.py")


def _loads(shape, arch):
    target = load_arch(arch)
    module = loom.lower(GEMM.kernel, GEMM.example_args(shape, meta=True), target).module
    candidates = enumerate_candidates(module, target, False).candidates
    model = build_model(module, candidates[0], target)
    return {p.tensor: p for n in nodes(model.heg) if isinstance(n, Pipe) for p in n.loads}


def test_a_gemms_a_blocks_start_at_the_k_step_every_core_is_on():
    loads = _loads({"M": 2048, "N": 1024, "K": 2048}, "blackhole_p150")
    assert loads["x"].same_columns and loads["x"].row_extent == 2048  # A: K = 2048 = 64 tiles a row
    assert not loads["y"].same_columns and loads["y"].row_extent == 1024  # B: its columns follow the grid's n


@pytest.mark.parametrize("arch, width, slower", [
    ("blackhole_p150", 2, 4),   # 8 banks, rows 64 tiles apart: every row starts on one bank; 2 of 8 banks
    ("blackhole_p150", 8, 1),   # a block as wide as the banks covers them all
    ("wormhole_n150", 2, 2),    # 12 banks, g = gcd(64, 12) = 4: rows start on 3 banks, 6 of 12 covered
    ("wormhole_n150", 1, 4),
])
def test_narrow_blocks_at_one_column_are_served_by_fewer_banks(arch, width, slower):
    target = load_arch(arch)
    model = LatencyModel.__new__(LatencyModel)
    model.arch, model.tile = target, (32, 32)
    prim = Primitive("load", ((128, 32 * width),), 2, tensor="x", row_extent=64 * 32, same_columns=True)
    assert model.crowds_banks(prim)
    chip_bytes = 1 << 20
    full = E.evaluate(E.rate(chip_bytes, target.dram.bandwidth_bytes_per_cycle), {})
    assert E.evaluate(model.fewer_banks(prim, E.Const(chip_bytes)), {}) == pytest.approx(slower * full, rel=0.01)


def test_rows_not_a_multiple_of_shared_banks_do_not_crowd():
    model = LatencyModel.__new__(LatencyModel)
    model.arch, model.tile = load_arch("blackhole_p150"), (32, 32)
    for rows_apart, same in ((65, True), (64, False)):
        prim = Primitive("load", ((128, 64),), 2, tensor="x", row_extent=rows_apart * 32, same_columns=same)
        assert not model.crowds_banks(prim)
