"""Reduction-axis parallelism: which loops split, the split candidates, their model and report."""

from __future__ import annotations

import pytest
from xdsl.dialects import scf

import loom
from loom.arch import load_arch
from loom.kernel_file import load_kernel_file
from loom.mapping.candidates import enumerate_candidates
from loom.model import expr as E
from loom.model.constraints import build_model
from loom.model.heg import Combine, nodes
from loom.model.latency import LatencyModel
from loom.pipeline import compile as compile_kernel
from loom.schedule import Schedule
from tests.conftest import EXAMPLES


def _loop_attrs(kernel, args) -> dict:
    module = loom.lower(kernel, args, stage="frontend").module
    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp) and op.iter_args]
    return {k: v for k, v in loop.attributes.items() if k.startswith("loom.c")}


def _example(name: str, shape: dict):
    source = load_kernel_file(EXAMPLES / f"{name}.py")
    return source, source.example_args(shape, meta=True)


def test_gemm_accumulator_is_a_sum():
    source, args = _example("matmul", {"M": 64, "N": 64, "K": 256})
    attrs = _loop_attrs(source.kernel, args)
    assert attrs["loom.combine"].data == "sum"
    assert [r.data for r in attrs["loom.carried_roles"].data] == ["sum"]


@pytest.mark.parametrize("name", ["flash_decode", "flash_attention"])
def test_online_softmax_is_a_log_sum_exp(name):
    source, args = _example(name, {"B": 1, "H": 2, "L": 128, "D": 64})
    attrs = _loop_attrs(source.kernel, args)
    assert attrs["loom.combine"].data == "lse"
    assert [r.data for r in attrs["loom.carried_roles"].data] == ["max", "rescaled", "rescaled"]


@pytest.mark.parametrize("kernel, reason", [
    ("matmul_plus_one", "starts at 1.0"),
    ("decayed_sum", "is not updated as x + f(...)"),
])
def test_loops_that_do_not_combine_are_refused_with_a_reason(kernel, reason):
    """A split would be silently wrong: the accumulator's start is counted once per core, or the
    update depends on the order of the chunks."""
    import torch

    from tests.mapping import reduction_kernels

    fn = getattr(reduction_kernels, kernel)
    args = reduction_kernels.inputs() if kernel == "matmul_plus_one" else (torch.randn(256, 256),)
    attrs = _loop_attrs(fn, args)
    assert "loom.combine" not in attrs
    assert reason in attrs["loom.combine_refused"].data


def test_split_candidates_cover_widths_and_can_be_turned_off():
    source, args = _example("matmul", {"M": 256, "N": 256, "K": 16384})
    arch = load_arch("wormhole_n150")
    module = loom.lower(source.kernel, args, arch).module
    cands = enumerate_candidates(module, arch).candidates
    widths = {c.split.width for c in cands if c.split}
    assert {2, 4, 8, 16} <= widths  # lines and rectangles of cores
    assert len({c.name for c in cands}) == len(cands)  # names are file names: unique
    assert not any(c.split for c in enumerate_candidates(module, arch, portable=True).candidates)
    big, big_args = _example("matmul", {"M": 2048, "N": 2048, "K": 2048})
    module = loom.lower(big.kernel, big_args, arch).module
    assert not any(c.split for c in enumerate_candidates(module, arch).candidates)


def test_a_split_takes_a_level_of_its_own_so_one_row_axis_fills_the_grid():
    """kl_div at 1024 x 1024 has 32 row blocks: unsplit it runs on 32 cores; a split's views hold one level
    more per dimension than the grid has axes, so the rows keep 32 cores and the split doubles them."""
    source, args = _example("kl_div", {"M": 1024, "N": 1024})
    arch = load_arch("wormhole_n150")
    module = loom.lower(source.kernel, args, arch).module
    cands = enumerate_candidates(module, arch).candidates
    assert max(c.axis("tile_m").spatial for c in cands if not c.split) == 32
    full = [c for c in cands if c.split and c.axis("tile_m").spatial == 32 and c.view.cores == 64]
    assert full and all(c.split.width == 2 for c in full)
    compilation = compile_kernel(source.kernel, args, arch, shape={"M": 1024, "N": 1024})
    best = compilation.ranked[0].model.candidate
    assert best.view.cores == 64 and best.split


def test_non_power_of_two_split_on_blackhole():
    source, args = _example("flash_decode", {"B": 1, "H": 8, "L": 4096, "D": 64})
    arch = load_arch("blackhole_p150")
    cands = enumerate_candidates(loom.lower(source.kernel, args, arch).module, arch).candidates
    assert {5, 13} <= {c.split.width for c in cands if c.split}


def test_combine_cost_grows_with_the_split_width():
    """The model sees what TTNN found: wider splits pay more for the combine."""
    source, args = _example("matmul", {"M": 256, "N": 256, "K": 16384})
    arch = load_arch("wormhole_n150")
    module = loom.lower(source.kernel, args, arch).module
    costs = {}
    for cand in enumerate_candidates(module, arch).candidates:
        if cand.split is not None:
            heg = build_model(module, cand, arch).heg
            combine = next(n for n in nodes(heg) if isinstance(n, Combine))
            cost = LatencyModel(arch, cand).combine(combine, E.Const(1))
            costs[cand.split.width] = E.evaluate(cost, {"tile_m": 64, "tile_n": 64, "tile_k": 256})
    assert costs[2] < costs[4] < costs[8]


def test_solver_chooses_split_k_for_a_skinny_gemm():
    # 4 x 4 output tiles: unsplit, 16 cores work (75.6 k simulated cycles); an 8-way split of K
    # puts 32 to work (49.9 k)
    shape = {"M": 128, "N": 128, "K": 16384}
    source, args = _example("matmul", shape)
    result = compile_kernel(source.kernel, args, "wormhole_n150", shape=shape, top_k=0)
    best = result.ranked[0]
    assert best.model.candidate.split is not None, best.name
    unsplit = next(r for r in result.ranked if r.model.candidate.split is None)
    assert best.cycles < unsplit.cycles
    assert result.schedule.split["combine"] == "sum" and result.schedule.split_note == ""


def test_split_schedule_round_trips_through_json():
    shape = {"M": 128, "N": 128, "K": 16384}
    source, args = _example("matmul", shape)
    first = compile_kernel(source.kernel, args, "wormhole_n150", shape=shape)
    again = compile_kernel(source.kernel, args, "wormhole_n150", shape=shape,
                           schedule=Schedule.from_json(first.schedule.to_json()))
    assert again.ranked[0].name == first.ranked[0].name
    assert again.ranked[0].cycles == first.ranked[0].cycles
    assert again.schedule.split == first.schedule.split and first.schedule.split


def test_unsplit_schedule_says_why():
    shape = {"M": 2048, "N": 2048, "K": 256}
    source, args = _example("matmul", shape)
    result = compile_kernel(source.kernel, args, "wormhole_n150", shape=shape)
    assert result.ranked[0].model.candidate.split is None
    assert "tile_k could split (sum)" in result.schedule.split_note
