"""Stage 4: views, axis orders, reuse, transfer modes, candidate IR."""

from __future__ import annotations

from itertools import product
from math import prod
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import affine

import loom
from loom.arch import load_arch
from loom.ir.text import parse, to_text
from loom.kernel_file import load_kernel_file
from loom.mapping.axis_order import (
    AxisScore,
    brute_force_extensions,
    dominance_edges,
    linear_extensions,
)
from loom.mapping.candidate_ir import candidate_module
from loom.mapping.candidates import enumerate_candidates
from loom.mapping.reuse import access_reuse
from loom.mapping.views import dimension_levels, enumerate_views, ordered_factorizations
from tests.conftest import EXAMPLES, GOLDEN_SHAPES, KERNELS, check_golden


def brute_force_factorizations(n: int, max_parts: int) -> set[tuple[int, ...]]:
    found = set()
    for parts in range(1, max_parts + 1):
        for combo in product(range(2, n + 1), repeat=parts):
            p = 1
            for c in combo:
                p *= c
            if p == n:
                found.add(combo)
    return found


@pytest.mark.parametrize("n, depth", [(8, 3), (12, 2), (13, 2), (10, 3), (32, 3), (64, 2)])
def test_ordered_factorizations_match_brute_force(n, depth):
    assert set(ordered_factorizations(n, depth)) == brute_force_factorizations(n, depth)
    assert len(ordered_factorizations(n, depth)) == len(set(ordered_factorizations(n, depth)))


@pytest.mark.parametrize("dims", [(8, 8), (13, 10), (32,)])
def test_views_are_products_of_dimension_levels(dims):
    views = enumerate_views(dims, 2)
    per_dim = [dimension_levels(d, 2) for d in dims]
    expected = 1
    for options in per_dim:
        expected *= len(options)
    assert len(views) == expected
    assert len({v.levels for v in views}) == len(views)
    assert all(all(o <= d for o, d in zip(v.occupancy, dims)) for v in views)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=6))))
def test_linear_extensions_match_brute_force(case):
    n, pairs = case
    axes = [f"a{i}" for i in range(n)]
    before = {(axes[i], axes[j]) for i, j in pairs if i < j}  # acyclic by construction
    assert linear_extensions(axes, before) == sorted(brute_force_extensions(axes, before),
                                                     key=linear_extensions(axes, set()).index)


def test_dominance_needs_all_three_scores():
    a, b = AxisScore("a", 10, 5, 1), AxisScore("b", 8, 5, 1)
    c = AxisScore("c", 20, 1, 1)
    assert dominance_edges([a, b, c]) == {("a", "b")}


def lowered(name, shape=None, arch="wormhole_n150"):
    source = load_kernel_file(EXAMPLES / f"{name}.py") if "/" not in name else load_kernel_file(name)
    return loom.lower(source.kernel, source.example_args(shape or GOLDEN_SHAPES.get(name, {})), arch=arch)


def test_gemm_reuse_is_found_along_the_other_axis():
    module = lowered("matmul").module
    (grid,) = [op for op in module.walk() if isinstance(op, affine.ParallelOp)]
    facts = {f.tensor: f for f in access_reuse(grid)}
    assert facts["x"].spatial == ("tile_n",)  # A is the same for every core along N
    assert facts["y"].spatial == ("tile_m",)  # B is the same for every core along M
    assert facts["out"].spatial == ()


def test_gemm_multicasts_a_along_the_n_dimension():
    arch = load_arch("wormhole_n150")
    cands = enumerate_candidates(lowered("matmul", {"M": 2048, "N": 2048, "K": 256}).module, arch)
    # x8_y1y8 with order m,n: tile_m on x, tile_n on y -> A (x) shared along y: a column multicast
    chosen = [c for c in cands.candidates if c.view.name == "x8_y1y8" and c.order == ("tile_m", "tile_n")]
    modes = {(t.tensor, t.mode) for c in chosen for t in c.transfers}
    assert ("x", "column") in modes and ("y", "row") in modes
    assert ("x", "row") not in modes and ("y", "column") not in modes
    for c in chosen:
        for t in c.transfers:
            if t.mode == "column":
                assert t.group == (1, 8)


def test_a_minor_load_takes_unicast_alone():
    """The bias (N elements) read whole by each of 64 cores moves less than the weight (K x N) once: its
    multicasts would only multiply the candidates; the matrices keep theirs."""
    arch = load_arch("wormhole_n150")
    cands = enumerate_candidates(lowered("matmul_bias_gelu", {"M": 1024, "N": 1024, "K": 512}).module, arch)
    modes = {}
    for c in cands.candidates:
        for t in c.transfers:
            modes.setdefault(t.tensor, set()).add(t.mode)
    assert modes["bias"] == {"unicast"}
    assert len(modes["x"]) > 1 and len(modes["w"]) > 1


def test_a_dimension_that_splits_the_tiles_unevenly_also_offers_a_power_of_two_of_its_cores():
    # 64 tiles on Blackhole's 13 x 10: no multicast fits the whole grid (cores sharing one run in
    # lockstep), so 8 of the 13 columns and 8 of the 10 rows are offered, with 2-D multicasts
    arch = load_arch("blackhole_p150")
    cands = enumerate_candidates(lowered("matmul", {"M": 2048, "N": 2048, "K": 256}, arch.name).module, arch)
    occupancies = {c.view.occupancy for c in cands.candidates}
    assert {(13, 10), (8, 8), (13, 8), (8, 10)} <= occupancies
    assert all(x in (13, 8) and y in (10, 8) for x, y in occupancies)  # no other partial occupancy
    assert any(c.view.occupancy == (8, 8)
               and {t.mode for t in c.transfers if t.direction == "load"} == {"row", "column"}
               for c in cands.candidates)
    wormhole = enumerate_candidates(lowered("matmul", {"M": 2048, "N": 2048, "K": 256}).module,
                                    load_arch("wormhole_n150"))
    assert {c.view.occupancy for c in wormhole.candidates} == {(8, 8)}  # 8 divides 64: nothing changes


def test_every_access_depends_on_every_axis_means_no_multicast():
    path = str(Path(__file__).parent / "elementwise_kernel.py")
    source = load_kernel_file(path)
    module = loom.lower(source.kernel, source.example_args()).module
    cands = enumerate_candidates(module, load_arch("wormhole_n150"))
    assert cands.candidates
    assert all(t.mode == "unicast" for c in cands.candidates for t in c.transfers)


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
def test_candidates_for_every_architecture(arch):
    cands = enumerate_candidates(lowered("matmul", {"M": 1024, "N": 1024, "K": 256}, arch).module, load_arch(arch))
    assert 0 < len(cands.candidates) < cands.full_space
    ndims = len(load_arch(arch).grid.dims)
    assert all(len(t.group) == ndims for c in cands.candidates for t in c.transfers)
    if arch == "ring32":
        # a ring multicasts along itself only; forwarding down the ring needs no multicast
        assert {t.mode for c in cands.candidates for t in c.transfers} <= {"unicast", "row", "forward_row"}


def test_attention_orders_put_the_reusing_axis_first():
    arch = load_arch("wormhole_n150")
    cands = enumerate_candidates(lowered("flash_attention", {"B": 1, "H": 4, "L": 256, "D": 64}).module, arch)
    assert {c.order[:2] for c in cands.candidates} == {("b", "tile_m")}  # it dominates h; b (one batch) runs no loop


def _blocks_on_cores(candidate) -> tuple:
    """For every core of the view, the block coordinate of each axis and the split rank it runs (each axis
    numbers its levels in order, as `loom.backend.split` does)."""
    per_core = []
    for used in product(*(range(prod(f)) for f in candidate.view.levels)):
        digit = {}
        for d, factors in enumerate(candidate.view.levels):
            rest = used[d]
            for level in reversed(range(len(factors))):
                digit[(d, level)], rest = rest % factors[level], rest // factors[level]
        owners = [a.levels for a in candidate.axes] + [candidate.split.levels if candidate.split else ()]
        coordinate = []
        for levels in owners:
            value = 0
            for d, level, size in levels:
                value = value * size + digit[(d, level)]
            coordinate.append(value)
        per_core.append((used, tuple(coordinate)))
    return tuple(per_core)


@pytest.mark.parametrize("name, shape", [("flash_attention", {"B": 1, "H": 4, "L": 256, "D": 64}),
                                         ("bmm", {"B": 1, "M": 256, "N": 256, "K": 256})])
def test_axes_of_one_block_run_on_no_cores_and_no_two_candidates_place_blocks_alike(name, shape):
    arch = load_arch("wormhole_n150")
    cands = enumerate_candidates(lowered(name, shape).module, arch).candidates
    assert all(a.levels == () for c in cands for a in c.axes if a.axis in ("b", "tile_b"))
    placed = [(_blocks_on_cores(c), c.order, tuple((t.mode, t.group) for t in c.transfers)) for c in cands]
    assert len(placed) == len(set(placed))  # x1x8 and x8, or x2x4 and x2x2x2, placing every block alike: one kept


@pytest.mark.parametrize("name", KERNELS)
def test_golden_candidate_ir(name):
    arch = load_arch("wormhole_n150")
    result = lowered(name)
    cands = enumerate_candidates(result.module, arch).candidates
    shared = [c for c in cands if any(t.mode in ("row", "column", "rect") for t in c.transfers)]
    candidate = (shared or cands)[0]
    text = to_text(candidate_module(result.module, candidate))
    assert to_text(parse(text)) == text
    check_golden(f"{name}.03_candidate.mlir", f"// candidate {candidate.name}\n" + text)


def test_accesses_with_the_same_reuse_take_the_same_transfer():
    """rope reads each of x, cos and sin as two halves with equal reuse facts: the halves are tied, so
    each candidate has one transfer per tensor (the count drops from thousands to a few hundred)."""
    from loom.kernel_file import load_kernel_file
    from loom.mapping.candidates import enumerate_candidates

    source = load_kernel_file(Path(__file__).parents[2] / "examples" / "rope.py")
    lowering = loom.lower(source.kernel, source.example_args({"H": 2, "S": 128, "D": 64}, meta=True))
    candidates = enumerate_candidates(lowering.stages["concrete"], load_arch("wormhole_n150")).candidates
    assert 0 < len(candidates) < 1000
    for candidate in candidates:
        by_reuse: dict = {}
        for transfer in candidate.transfers:
            by_reuse.setdefault(transfer.access, set()).add((transfer.mode, transfer.group))
        assert all(len(modes) == 1 for modes in by_reuse.values())
    loads = [t for t in candidates[0].transfers if t.direction == "load"]
    assert len(loads) == 6 and len({t.access for t in loads}) == 3


ALIKE_ROWS = '''
import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def rows_times_weights(g: torch.Tensor, x: torch.Tensor, s: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=torch.float32)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(n):
            rows = g[tile_m, tile_k] * x[tile_m, tile_k] * s[tile_m, tile_k]
            acc = torch.addmm(acc, rows, w[tile_k, tile_n])
        out[tile_m, tile_n] = acc
    return out


def inputs(M: int = 256, N: int = 256):
    return tuple(torch.randn(M, N) for _ in range(4))
'''


def test_tensors_of_one_size_read_alike_take_the_same_transfer(tmp_path):
    """g, x and s are read alike (the same block of the same-sized tensor on every core): their transfers
    are tied, one choice for the three (a factor 9 fewer candidates), each transfer naming its own tensor."""
    path = tmp_path / "kernel.py"
    path.write_text(ALIKE_ROWS)
    source = load_kernel_file(path)
    lowering = loom.lower(source.kernel, source.example_args(meta=True))
    candidates = enumerate_candidates(lowering.stages["concrete"], load_arch("wormhole_n150")).candidates
    assert candidates
    for candidate in candidates:
        loads = {t.tensor: t for t in candidate.transfers if t.direction == "load"}
        assert set(loads) == {"g", "x", "s", "w"}
        assert all(t.access.tensor == name for name, t in loads.items())
        assert len({(loads[n].mode, loads[n].group) for n in "gxs"}) == 1
    assert any(c.transfers[0].mode != "unicast" for c in candidates)
