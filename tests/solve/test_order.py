"""Bound-ordered solving (issue 18): the bound is below every optimum, pruning and the incumbent
cutoff never change the top-k, and the number of jobs changes nothing."""

from __future__ import annotations

import pytest

import loom.solve.bound as bound_module
import loom.solve.order as order
from loom.kernel_file import load_kernel_file
from loom.model import expr as E
from loom.model.problem import Problem
from loom.pipeline import compile as compile_kernel
from loom.solve.bound import lower_bound
from loom.solve.cpsat import solve
from tests.conftest import EXAMPLES

SHAPES = [("wormhole_n150", {"M": 512, "N": 512, "K": 256}), ("wormhole_n150", {"M": 2048, "N": 256, "K": 1024}),
          ("blackhole_p150", {"M": 512, "N": 512, "K": 256}), ("blackhole_p150", {"M": 1024, "N": 2048, "K": 512})]


def compiled(arch: str, shape: dict, kernel: str = "matmul", **options):
    source = load_kernel_file(EXAMPLES / f"{kernel}.py")
    return compile_kernel(source.kernel, source.example_args(shape, meta=True), arch, shape=shape, **options)


def top(result) -> list:
    return [(r.name, r.cycles, sorted(r.values.items())) for r in result.ranked]


@pytest.mark.parametrize(("arch", "shape"), SHAPES)
def test_bound_is_at_most_every_optimum(arch, shape):
    every = compiled(arch, shape, top_k=0)  # every candidate solved and ranked
    assert every.ranked
    for r in every.ranked:
        assert r.proven_optimal
        b = lower_bound(r.model.problem)
        assert not b.infeasible and b.value <= r.cycles, r.name
        coarse = lower_bound(r.model.problem, max_points=1)  # interval arithmetic alone: weaker, still sound
        assert coarse.value <= b.value and not coarse.exact


@pytest.mark.parametrize(("arch", "shape"), SHAPES[::2])
@pytest.mark.parametrize("k", [1, 3])
def test_pruning_never_changes_the_top_k(arch, shape, k):
    exhaustive = compiled(arch, shape, top_k=k, exhaustive=True, jobs=1)
    ordered = compiled(arch, shape, top_k=k, jobs=1)
    assert top(ordered) == top(exhaustive)
    assert ordered.schedule.to_json() == exhaustive.schedule.to_json()
    counts = ordered.counts
    assert counts.solved >= k and counts.pruned_by_bound > 0 and not counts.exhaustive
    assert counts.solved + counts.pruned_by_bound + counts.pruned_by_cutoff + counts.infeasible \
        + counts.not_solved == len(ordered.candidates.candidates)
    pruned = [r for r in ordered.rejected if r.kind == "pruned"]
    assert all(r.reason.startswith("pruned by bound: lower bound ") and " >= incumbent " in r.reason for r in pruned)


def test_interval_bounds_use_the_cutoff_and_keep_the_top_k(monkeypatch):
    """With a one-point grid every bound is an interval bound: candidates below the incumbent are
    solved under the cutoff first, and the choice is still exhaustive solving's."""
    monkeypatch.setattr(order, "lower_bound",
                        lambda p, grids=None: bound_module.lower_bound(p, max_points=1, grids=grids))
    arch, shape = SHAPES[0]
    ordered = compiled(arch, shape, top_k=2, jobs=1)
    assert top(ordered) == top(compiled(arch, shape, top_k=2, exhaustive=True, jobs=1))
    assert ordered.counts.exact_bounds == 0 and ordered.counts.pruned_by_cutoff > 0


def test_cutoff_is_respected():
    x = E.Var("x")
    objective = E.add(E.mul(3, x), E.ceil_div(600, x))  # minimum 3*14 + 43 = 85 at x = 14
    problem = Problem(objective, [], {"x": list(range(1, 40))}, name="p")
    best = solve(problem)
    assert best.objective == 85 and lower_bound(problem).value == 85 and lower_bound(problem).exact
    for limit in (85, 90, 200):
        cut = order._cutoff(problem, (limit, "q"))  # "p" < "q": ties would go to p, so <= limit
        got = solve(cut)
        assert got.feasible and got.objective <= limit
    assert solve(order._cutoff(problem, (85, "a"))).status == "INFEASIBLE"  # "p" > "a": must beat 85
    assert solve(order._cutoff(problem, (84, "q"))).status == "INFEASIBLE"


def test_jobs_1_and_2_give_identical_choices(monkeypatch):
    monkeypatch.setattr(order._Runner, "POOL_MIN", 2)  # waves of 2 or more go to the pool
    arch, shape = SHAPES[3]
    one, two = (compiled(arch, shape, top_k=3, jobs=j) for j in (1, 2))
    assert top(one) == top(two)
    assert one.schedule.to_json() == two.schedule.to_json()
    assert (one.counts.solved, one.counts.pruned_by_bound) == (two.counts.solved, two.counts.pruned_by_bound)


def test_flash_kernels_match_exhaustive_solving():
    for kernel, shape in (("flash_attention", {"B": 1, "H": 4, "L": 512, "D": 64}),
                          ("flash_decode", {"B": 4, "H": 8, "L": 1024, "D": 64})):
        ordered = compiled("wormhole_n150", shape, kernel, top_k=1)
        assert top(ordered) == top(compiled("wormhole_n150", shape, kernel, top_k=1, exhaustive=True))
