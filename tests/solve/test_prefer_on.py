"""A double-buffering knob the model finds free is taken (`Problem.prefer_on`): in the tie-break (brute force,
CP-SAT's second phase) and where ties are left to CP-SAT (`Problem.preferring_on`); never against a constraint."""

from __future__ import annotations

from loom.model.expr import Knob, Var, add, maximum, mul, select
from loom.model.problem import Constraint, Problem
from loom.solve.cpsat import brute_force, solve


def _problem(prefer: bool, l1_limit: int = 100) -> Problem:
    # the overlap makes no difference to the objective (the load is hidden either way), and costs L1
    objective = maximum(mul(Var("b"), 3), select(Knob("overlap"), Var("b"), Var("b")))
    l1 = add(Var("b"), mul(Knob("overlap"), Var("b")))
    return Problem(objective, [Constraint("L1", l1, l1_limit)], {"b": [8, 16]}, ["overlap"], "p",
                   prefer_on=["overlap"] if prefer else [])


def test_a_free_overlap_is_taken():
    for tie_break in (True, False):
        assert solve(_problem(True), tie_break=tie_break).values == {"b": 8, "overlap": 1}
    assert brute_force(_problem(True)).values == {"b": 8, "overlap": 1}
    assert brute_force(_problem(False)).values == {"b": 8, "overlap": 0}


def test_an_overlap_that_does_not_fit_is_left_off():
    assert solve(_problem(True, l1_limit=12), tie_break=False).values == {"b": 8, "overlap": 0}
    assert brute_force(_problem(True, l1_limit=12)).values == {"b": 8, "overlap": 0}
