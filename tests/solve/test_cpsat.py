"""CP-SAT layer: optimum equals brute force on random trees, infeasibility is named, overflow is refused."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loom.model.expr import (
    Add,
    CeilDiv,
    Const,
    FloorDiv,
    Knob,
    Max,
    Min,
    Mul,
    Rate,
    Select,
    Var,
    add,
    ceil_div,
    evaluate,
    floor_div,
    maximum,
    minimum,
    mul,
    rate,
    select,
)
from loom.model.problem import Constraint, Problem, SolverError
from loom.solve.cpsat import ModelOverflowError, brute_force, solve, solve_many

# ---------------------------------------------------------------------------
# Random problems: 1-3 variables with <= 6 values each, 0-2 knobs, 0-2 `<=` constraints.


def _trees(names: list[str], knobs: list[str]) -> st.SearchStrategy:
    leaves = st.one_of(
        st.sampled_from([Var(n) for n in names]),
        st.integers(-5, 20).map(Const),
        *([st.sampled_from([Knob(k) for k in knobs])] if knobs else []),
    )

    def extend(kids: st.SearchStrategy) -> st.SearchStrategy:
        some = st.lists(kids, min_size=2, max_size=3)
        # Both the simplifying helpers and the raw nodes, so lowering meets unsimplified shapes too.
        options = [
            some.map(lambda xs: add(*xs)),
            some.map(lambda xs: Add(tuple(xs))),
            some.map(lambda xs: mul(*xs)),
            some.map(lambda xs: Mul(tuple(xs))),
            some.map(lambda xs: maximum(*xs)),
            some.map(lambda xs: Min(tuple(xs))),
            some.map(lambda xs: Max(tuple(xs))),
            some.map(lambda xs: minimum(*xs)),
            st.tuples(kids, st.integers(1, 7)).map(lambda t: CeilDiv(t[0], Const(t[1]))),
            st.tuples(kids, st.integers(1, 7)).map(lambda t: floor_div(t[0], t[1])),
            # A variable denominator, kept positive by max(., 1).
            st.tuples(kids, kids).map(lambda t: CeilDiv(t[0], Max((t[1], Const(1))))),
            st.tuples(kids, kids).map(lambda t: FloorDiv(t[0], maximum(t[1], 1))),
            st.tuples(kids, st.integers(1, 50), st.integers(1, 5)).map(lambda t: Rate(*t)),
        ]
        if knobs:
            options.append(
                st.tuples(st.sampled_from(knobs), kids, kids).map(lambda t: Select(Knob(t[0]), t[1], t[2]))
            )
        return st.one_of(options)

    return st.recursive(leaves, extend, max_leaves=7)


@st.composite
def problems(draw) -> Problem:
    names = ["w", "u", "v"][: draw(st.integers(1, 3))]
    knobs = ["k1", "k0"][: draw(st.integers(0, 2))]
    domains = {n: draw(st.lists(st.integers(-6, 40), min_size=1, max_size=6, unique=True)) for n in names}
    trees = _trees(names, knobs)
    constraints = [
        Constraint(f"c{i}", draw(trees), draw(st.one_of(trees, st.integers(-20, 200).map(Const))))
        for i in range(draw(st.integers(0, 2)))
    ]
    return Problem(draw(trees), constraints, domains, knobs, name="random")


def _infeasible(problem: Problem, names: list[str]) -> bool:
    sub = [c for c in problem.constraints if c.name in names]
    return brute_force(Problem(problem.objective, sub, problem.domains, problem.knobs)).status == "INFEASIBLE"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_cpsat_matches_brute_force(problem):
    got, want = solve(problem), brute_force(problem)
    assert got.status == want.status
    if want.status == "OPTIMAL":
        assert got.proven_optimal and got.objective == want.objective == got.best_bound
        assert got.values == want.values  # same tie rule: lexicographically smallest optimum
        assert got.objective == evaluate(problem.objective, got.values)
        assert all(c.holds(got.values) for c in problem.constraints)
    else:
        culprits = got.infeasible_constraints
        assert culprits and _infeasible(problem, culprits)
        for name in culprits:  # minimal: dropping any one makes the rest feasible
            assert not _infeasible(problem, [n for n in culprits if n != name])


# ---------------------------------------------------------------------------
# GEMM in the paper's form: T = trips * pipe(load, compute, store), knobs b = (load overlap, store overlap).

tm, tn, tk = Var("tile_m"), Var("tile_n"), Var("tile_k")
b_load, b_store = Knob("b_load"), Knob("b_store")


def pipe(ld, m, s):
    return select(
        b_load,
        select(b_store, maximum(ld, m, s), maximum(ld, m + s)),
        select(b_store, maximum(ld + m, s), ld + m + s),
    )


def gemm(capacity: int, extent: int = 256) -> Problem:
    load = rate(2 * tm * tk + 2 * tk * tn, 22.5, label="DRAM load of x, y")
    compute = mul(16, ceil_div(tm * tn * tk, 32 * 32 * 32), label="matmul")
    store = rate(2 * tm * tn, 22.5, label="DRAM store of out")
    trips = ceil_div(extent, tm) * ceil_div(extent, tn) * ceil_div(extent, tk)
    footprint = (2 * tm * tk + 2 * tk * tn) * (1 + b_load) + 2 * tm * tn * (1 + b_store)
    tiles = [v for v in range(32, extent + 1, 32) if extent % v == 0]
    return Problem(
        trips * pipe(load, compute, store),
        [Constraint(f"L1 footprint <= {capacity} bytes", footprint, capacity)],
        {"tile_m": tiles, "tile_n": tiles, "tile_k": tiles},
        ["b_load", "b_store"],
        name=f"gemm L1={capacity}",
    )


def test_pipe_four_cases():
    ld, m, s = Var("l"), Var("m"), Var("s")
    env = {"l": 5, "m": 7, "s": 3}
    cases = {(0, 0): 5 + 7 + 3, (0, 1): max(5 + 7, 3), (1, 0): max(5, 7 + 3), (1, 1): max(5, 7, 3)}
    for (bl, bs), want in cases.items():
        assert evaluate(pipe(ld, m, s), {**env, "b_load": bl, "b_store": bs}) == want


@pytest.mark.parametrize("capacity", [6144, 10240, 40000, 1 << 20])
def test_gemm_matches_brute_force(capacity):
    got, want = solve(gemm(capacity)), brute_force(gemm(capacity))
    assert got == want


def test_gemm_knobs_flip_on_when_l1_allows():
    roomy = solve(gemm(1 << 20))
    assert (roomy.values["b_load"], roomy.values["b_store"]) == (1, 1)
    # 32x32x32 tiles without any double buffer take exactly 6144 bytes: nothing else fits.
    tight = solve(gemm(6144))
    assert tight.values == {"b_load": 0, "b_store": 0, "tile_k": 32, "tile_m": 32, "tile_n": 32}
    assert roomy.objective < tight.objective


# ---------------------------------------------------------------------------
# Infeasibility, validation, overflow, determinism, batches


def test_infeasible_names_the_responsible_constraints():
    x = Var("tile_m")
    p = Problem(
        x,
        [
            Constraint("fits anywhere", x, 10_000),
            Constraint("L1 footprint <= 1000 bytes", x * 64, 1000),
            Constraint("at least two tiles", 2, ceil_div(256, x)),
        ],
        {"tile_m": [32, 64, 128]},
        [],
    )
    for sol in (solve(p), brute_force(p)):
        assert sol.status == "INFEASIBLE" and not sol.proven_optimal and sol.objective is None
        assert sol.infeasible_constraints == ["L1 footprint <= 1000 bytes"]


def test_infeasible_pair_is_reported_together():
    x, y = Var("x"), Var("y")
    p = Problem(
        x + y,
        [
            Constraint("x at least 5", 5, x),
            Constraint("y small", y, 3),
            Constraint("x at most 3", x, 3),
            Constraint("sum equals 6", x + y, 6, "=="),
        ],
        {"x": list(range(10)), "y": list(range(10))},
        [],
    )
    assert solve(p).infeasible_constraints == ["x at least 5", "x at most 3"]
    assert brute_force(p).infeasible_constraints == ["x at least 5", "x at most 3"]


def test_empty_domain_is_reported():
    p = Problem(Var("tile_m") + Var("tile_n"), [], {"tile_m": [], "tile_n": [32]}, [])
    for sol in (solve(p), brute_force(p)):
        assert sol.status == "INFEASIBLE"
        assert sol.infeasible_constraints == ["domain of tile_m is empty"]


def test_problem_validation():
    with pytest.raises(SolverError, match="variable 'y' in the objective has no domain"):
        Problem(Var("x") + Var("y"), [], {"x": [1]}, [])
    with pytest.raises(SolverError, match="knob 'b' in constraint 'c' is not declared"):
        Problem(Var("x"), [Constraint("c", select("b", 1, 2), 3)], {"x": [1]}, [])
    with pytest.raises(SolverError, match="both as variable and knob"):
        Problem(Var("x"), [], {"x": [1]}, ["x"])
    assert Problem(Var("x"), [], {"x": [3, 1, 3]}, []).domains == {"x": [1, 3]}


def test_denominator_that_can_be_zero_is_refused():
    p = Problem(ceil_div(10, Var("x")), [], {"x": [0, 1, 2]}, [])
    with pytest.raises(SolverError, match="must be positive"):
        solve(p)
    with pytest.raises(SolverError, match="must be positive"):
        brute_force(p)


def test_large_constants_within_range_solve_exactly():
    x, y = Var("x"), Var("y")
    p = Problem(
        x * (1 << 50) + rate(y * (1 << 40), 22.5),
        [Constraint("big", x * (1 << 52), (3 << 52))],
        {"x": [1, 2, 3, 4], "y": [5, 6, 7]},
        [],
    )
    got = solve(p)
    assert got == brute_force(p)
    assert got.objective == (1 << 50) + -((-5 * (1 << 40) * 2) // 45)


def test_huge_terms_raise_a_clear_error_never_a_wrong_answer():
    x, y, z = Var("x"), Var("y"), Var("z")
    huge_const = Problem(x * (1 << 61) + 5, [], {"x": [1, 2, 3]}, [])
    with pytest.raises(ModelOverflowError, match=r"objective: .*x.* >= 2\^62, outside"):
        solve(huge_const)
    assert brute_force(huge_const).objective == (1 << 61) + 5  # exact in Python integers
    big = list(range(1 << 21, (1 << 21) + 3))
    huge_product = Problem(x, [Constraint("volume", x * y * z, 1 << 62)], {"x": big, "y": big, "z": big}, [])
    with pytest.raises(ModelOverflowError, match=r"constraint 'volume': `x\*y\*z` can reach"):
        solve(huge_product)
    with pytest.raises(ModelOverflowError, match="domain of x"):
        solve(Problem(x, [], {"x": [1, 1 << 62]}, []))


def test_same_problem_twice_gives_identical_solutions():
    p = gemm(40000)
    first, second = solve(p), solve(p)
    assert first == second and first.values == second.values
    assert solve(p, workers=2) == first  # a proven optimum with the tie-break is unique


def test_ties_too_wide_for_one_objective_use_a_second_phase():
    # T reaches 5 * 2^55: (T range) * 36 assignments overflows one combined objective.
    x, y = Var("x"), Var("y")
    domains = {"x": list(range(6)), "y": list(range(6))}
    p = Problem(maximum(x, y) * 2**55, [Constraint("enough", 3, x + y)], domains)
    assert brute_force(p).values == {"x": 1, "y": 2}
    assert solve(p) == brute_force(p)
    assert solve(p, workers=2).values == {"x": 1, "y": 2}


def test_time_limited_solve_keeps_its_invariants():
    tiles = list(range(32, 4097, 32))
    small = gemm(1 << 20)
    p = Problem(small.objective, small.constraints, {n: tiles for n in small.domains}, small.knobs)
    sol = solve(p, time_limit_s=0.05)
    assert sol.status in ("OPTIMAL", "FEASIBLE")
    assert sol.objective == evaluate(p.objective, sol.values)
    assert sol.best_bound <= sol.objective and 0.0 <= sol.gap <= 1.0
    assert sol.proven_optimal == (sol.status == "OPTIMAL")


def test_solve_many_parallel_equals_serial():
    x = Var("x")
    batch = [
        gemm(10240),
        gemm(1 << 20),
        Problem(x, [Constraint("impossible", x, 0)], {"x": [1, 2]}, [], name="infeasible"),
        Problem(x, [], {"x": []}, [], name="empty"),
    ]
    serial = solve_many(batch, jobs=1)
    assert solve_many(batch, jobs=2) == serial
    assert [s.name for s in serial] == ["gemm L1=10240", "gemm L1=1048576", "infeasible", "empty"]
    assert [s.status for s in serial] == ["OPTIMAL", "OPTIMAL", "INFEASIBLE", "INFEASIBLE"]
