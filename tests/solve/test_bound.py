"""The bound stage's evaluation over sparse grids: with every name on the grid the bound is the optimum
(and infeasibility is proven exactly), with names left off it the bound stays below the optimum; a node
whose magnitude could wrap int64 falls back to the interval bound; a denominator that can be zero gives
no bound."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from loom.model.expr import CeilDiv, Mul, Var
from loom.model.problem import Problem
from loom.solve.bound import lower_bound
from loom.solve.cpsat import brute_force
from tests.solve.test_cpsat import problems


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_the_full_grid_gives_the_optimum_and_a_partial_grid_stays_below_it(problem):
    want = brute_force(problem)
    full, partial = lower_bound(problem), lower_bound(problem, max_points=2)
    assert full.exact
    if want.status == "INFEASIBLE":
        assert full.infeasible and full.value is None
        return
    assert not full.infeasible and full.value == want.objective
    assert not partial.infeasible and (partial.value is None or partial.value <= want.objective)


def test_a_product_that_could_wrap_falls_back_to_the_interval_bound():
    big = [1, 2**25]
    problem = Problem(Mul((Var("a"), Var("b"), Var("c"))), [], {"a": big, "b": big, "c": big})
    got = lower_bound(problem)
    assert got.value == 1 and not got.exact and not got.infeasible  # 2^75 at the top corner: no arrays


def test_a_denominator_that_can_be_zero_gives_no_bound():
    problem = Problem(CeilDiv(Var("a"), Var("b")), [], {"a": [1, 8], "b": [0, 2]})
    assert lower_bound(problem).value is None
