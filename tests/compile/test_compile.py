"""Stages 5-6: HEG, latency, CP-SAT against brute force, selection, materialization, overrides."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import loom
from loom.arch import load_arch
from loom.ir.dialect import SymOp
from loom.ir.text import to_text
from loom.kernel_file import load_kernel_file
from loom.mapping.candidates import enumerate_candidates
from loom.model import expr as E
from loom.model.constraints import build_model
from loom.model.heg import For, Pipe, build_heg
from loom.pipeline import compile as compile_kernel
from loom.schedule import Schedule, ScheduleError
from loom.solve.cpsat import brute_force, solve
from tests.conftest import ARCH_DIR_FOR_TESTS, EXAMPLES


@cache
def concrete(name: str, shape: tuple, arch: str):
    source = load_kernel_file(EXAMPLES / f"{name}.py")
    return loom.lower(source.kernel, source.example_args(dict(shape)), arch=arch).module


def test_gemm_heg_is_temporal_loops_around_a_pipe_with_the_k_loop():
    module = concrete("matmul", (("K", 128), ("M", 256), ("N", 256)), "wormhole_n150")
    arch = load_arch("wormhole_n150")
    candidate = enumerate_candidates(module, arch).candidates[0]
    heg = build_heg(module, candidate)
    assert isinstance(heg, For) and isinstance(heg.child, For)  # the two temporal loops
    tile = heg.child.child
    assert isinstance(tile, Pipe) and [p.tensor for p in tile.stores] == ["out"]
    (k_loop,) = [item for item in tile.child.items if isinstance(item, For)]
    assert [p.tensor for p in k_loop.child.loads] == ["x", "y"]


def test_pipe_knobs_follow_the_four_cases():
    """With the store knob fixed, turning on load overlap never increases latency (max <= sum)."""
    module = concrete("matmul", (("K", 128), ("M", 256), ("N", 256)), "wormhole_n150")
    arch = load_arch("wormhole_n150")
    model = build_model(module, enumerate_candidates(module, arch).candidates[0], arch)
    sizes = {"tile_m": 64, "tile_n": 64, "tile_k": 32}
    knobs = model.problem.knobs
    base = {**sizes, **{k: 0 for k in knobs}}
    all_on = {**sizes, **{k: int(k.startswith("overlap_")) for k in knobs}}  # pipe knobs only, no kept panel
    assert E.evaluate(model.problem.objective, all_on) < E.evaluate(model.problem.objective, base)


SMALL_GEMMS = [(64, 64, 64), (128, 64, 96), (64, 128, 128), (128, 128, 64)]


@settings(max_examples=12, deadline=None)
@given(shape=st.sampled_from(SMALL_GEMMS), arch=st.sampled_from(["wormhole_n150", "blackhole_p150", "ring32"]),
       pick=st.integers(0, 1000))
def test_cpsat_optimum_equals_brute_force(shape, arch, pick):
    m, n, k = shape
    module = concrete("matmul", (("K", k), ("M", m), ("N", n)), arch)
    target = load_arch(arch)
    candidates = enumerate_candidates(module, target).candidates
    model = build_model(module, candidates[pick % len(candidates)], target)
    exact = brute_force(model.problem)
    found = solve(model.problem, time_limit_s=10)
    assert found.status == exact.status
    if exact.feasible:
        assert found.objective == exact.objective
        assert E.evaluate(model.footprint, found.values) <= target.l1.usable_bytes


@cache
def compiled(name: str, shape: tuple, arch: str = "wormhole_n150", **options):
    source = load_kernel_file(EXAMPLES / f"{name}.py")
    return compile_kernel(source.kernel, source.example_args(dict(shape)), arch, shape=dict(shape), **options)


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
@pytest.mark.parametrize("name, shape", [
    ("matmul", (("K", 256), ("M", 512), ("N", 256))),
    ("flash_attention", (("B", 1), ("D", 64), ("H", 2), ("L", 256))),
    ("flash_decode", (("B", 2), ("D", 64), ("H", 2), ("L", 512))),
])
def test_compile_all_kernels_on_all_architectures(name, shape, arch):
    result = compiled(name, shape, arch)
    best = result.ranked[0]
    assert best.cycles > 0 and result.schedule.predicted_cycles == best.cycles
    assert E.evaluate(best.model.footprint, best.values) <= load_arch(arch).l1.usable_bytes
    assert not [op for op in result.selected.walk() if isinstance(op, SymOp)]  # every symbol materialized
    assert result.schedule.dominant in ("dram", "noc", "compute", "fixed")


def test_identical_inputs_give_identical_output():
    shape = (("K", 256), ("M", 512), ("N", 256))
    first = compiled("matmul", shape)
    source = load_kernel_file(EXAMPLES / "matmul.py")
    second = compile_kernel(source.kernel, source.example_args(dict(shape)), "wormhole_n150", shape=dict(shape))
    assert first.schedule.to_json() == second.schedule.to_json()
    assert to_text(first.selected) == to_text(second.selected)


def test_block_size_override_and_schedule_replay_agree():
    shape = (("K", 256), ("M", 512), ("N", 256))
    source = load_kernel_file(EXAMPLES / "matmul.py")
    args = source.example_args(dict(shape))
    fixed = compile_kernel(source.kernel, args, "wormhole_n150", shape=dict(shape),
                           block_sizes={"tile_m": 128, "tile_n": 64, "tile_k": 64})
    assert fixed.schedule.block_sizes == {"tile_m": 128, "tile_n": 64, "tile_k": 64}
    assert fixed.schedule.source == "block-sizes"
    replayed = compile_kernel(source.kernel, args, "wormhole_n150", shape=dict(shape),
                              schedule=Schedule.from_json(fixed.schedule.to_json()))
    assert replayed.ranked[0].cycles == fixed.ranked[0].cycles
    assert to_text(replayed.selected) == to_text(fixed.selected)


def test_schedule_with_unknown_label_is_rejected():
    shape = (("K", 256), ("M", 512), ("N", 256))
    good = compiled("matmul", shape).schedule
    bad = Schedule.from_json(good.to_json())
    bad.block_sizes = {**bad.block_sizes, "tile_q": 64}
    source = load_kernel_file(EXAMPLES / "matmul.py")
    with pytest.raises(ScheduleError, match="unknown block-size label.*tile_q"):
        compile_kernel(source.kernel, source.example_args(dict(shape)), "wormhole_n150", schedule=bad)


def test_schedule_breaking_l1_is_rejected():
    shape = (("K", 2048), ("M", 2048), ("N", 2048))
    good = compiled("matmul", shape).schedule
    bad = Schedule.from_json(good.to_json())
    bad.block_sizes = {"tile_m": 2048, "tile_n": 2048, "tile_k": 2048}
    source = load_kernel_file(EXAMPLES / "matmul.py")
    with pytest.raises(ScheduleError, match="L1 footprint"):
        compile_kernel(source.kernel, source.example_args(dict(shape)), "wormhole_n150", schedule=bad)


def test_impossible_l1_names_the_failing_constraint(tmp_path):
    data = yaml.safe_load((Path(ARCH_DIR_FOR_TESTS) / "wormhole_n150.yaml").read_text())
    data["l1"]["usable_bytes"] = 4096
    data["name"] = "tiny_l1"
    path = tmp_path / "tiny_l1.yaml"
    path.write_text(yaml.safe_dump(data))
    source = load_kernel_file(EXAMPLES / "matmul.py")
    with pytest.raises(ScheduleError, match="no candidate is feasible.*L1 footprint <= 4096"):
        compile_kernel(source.kernel, source.example_args({"M": 256, "N": 256, "K": 256}), str(path))
