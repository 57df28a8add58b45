"""The bound stage's evaluation over sparse grids: with every name on the grid the bound is the optimum
(and infeasibility is proven exactly), with names left off it the bound stays below the optimum; a node
whose magnitude could wrap int64 falls back to the interval bound, one whose operands only look as if
they could (a quotient's largest value is far below its numerator's) does not; a denominator that can be
zero gives no bound."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from loom.model.expr import CeilDiv, Mul, Var, ceil_div, mul
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


def test_trips_bound_a_loop_nest_by_their_values_not_their_numerators():
    """ceil(2^20 / b) over b in [2^15, 2^20] is at most 32: four such trips times a 2^20 body stay far from
    2^62, though their numerators' product (2^100) does not: the bound is exact, the optimum itself."""
    sizes = [2**15, 2**16, 2**20]
    trips = [ceil_div(2**20, Var(n)) for n in "abcd"]
    problem = Problem(mul(*trips, Var("a")), [], {n: sizes for n in "abcd"})
    got = lower_bound(problem)
    assert got.exact and got.value == brute_force(problem).objective == 2**20  # a = 2^15: 32 trips of 2^15
