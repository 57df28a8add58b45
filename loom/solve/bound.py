"""A cheap, provable lower bound on a problem's optimum, for solving candidates in bound order.

The decision space of a candidate is small (a few block sizes with a handful of divisors each, a few
0/1 knobs), so the bound evaluates the whole problem over a grid of assignments at once, with numpy:
every node of the objective and of the constraints becomes a pair of arrays (lo, hi) over the grid's
axes of the names below it (broadcast to the whole grid only where a constraint or the objective is
read: most nodes depend on one or two names and cost a few entries, not the whole grid). Names on
the grid take their exact value at each point (lo == hi); a name left off the grid (when the grid
would exceed `MAX_POINTS`) ranges over its whole domain, and the node pairs are then interval
arithmetic (the same rules as `intervals.bounds`, sound for every assignment the point stands for). A
point is dropped when some constraint cannot hold anywhere in its box (the intervals of its two
sides do not meet); the bound is the least `lo` of the objective over the points left. Every
feasible assignment lies in the box of a point that is kept and its objective is at least that
point's `lo`, so the bound is at most the optimum. When every name is on the grid the boxes are
single assignments and the bound *is* the optimum.

Exactness of the integer arithmetic: beside its arrays each node gets a bound on its magnitude, in
Python integers, from its operands' (a sum's is the sum of theirs, a product's the product, a
quotient's its numerator's); it is checked before the arrays are computed, and once they are, the
node's bound becomes the largest magnitude its arrays hold, if that is less (what its parents then
multiply: ceil(1024 / tile_m) brings 32, not 1024, to the product of a loop nest's trips). If any node (or a partial
product of a Mul, or a Rate's scaled amount) could reach 2^62 the arrays could wrap, so the bound
falls back to the Python-integer interval bound of the objective (weaker, still sound). CP-SAT
refuses such a model anyway. A denominator that can be zero or negative gives no bound (the solver
reports it).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from loom.model.expr import (
    Add,
    CeilDiv,
    Const,
    Expr,
    FloorDiv,
    Knob,
    Max,
    Min,
    Mul,
    Rate,
    Select,
    Var,
    ceil_int,
)
from loom.model.intervals import bounds
from loom.model.problem import Problem

__all__ = ["Bound", "Grids", "MAX_POINTS", "lower_bound"]

MAX_POINTS = 1 << 15  # grid points per problem: about two milliseconds of numpy per candidate
_LIMIT = 2**62


@dataclass(frozen=True)
class Bound:
    """`value` <= the problem's optimum, or None: no bound (a denominator that can reach 0: the
    solver reports it) or, with `infeasible`, no assignment satisfies the constraints (`culprit`
    names one that fails everywhere on its own, if one does). `exact`: every name was on the grid,
    so `value` is the optimum itself."""

    value: int | None
    exact: bool
    infeasible: bool = False
    culprit: str | None = None


class Grids:
    """The evaluators of the last few grids, for bounding many problems: a kernel's candidates mostly share
    their names and domains (so their grids) and many of their nodes, and a node is memoised by its
    structure, so one the problems share is evaluated once on a grid they share."""

    def __init__(self, keep: int = 8):
        self.keep, self._evaluators = keep, OrderedDict()

    def evaluator(self, problem: Problem, on_grid: list[str]) -> _Evaluator:
        key = (tuple(on_grid), tuple((n, tuple(problem.space(n))) for n in problem.names))
        evaluator = self._evaluators.pop(key, None) or _Evaluator(_grid(problem, on_grid))
        self._evaluators[key] = evaluator  # the most recent last
        while len(self._evaluators) > self.keep:
            self._evaluators.popitem(last=False)
        return evaluator


def lower_bound(problem: Problem, max_points: int = MAX_POINTS, grids: Grids | None = None) -> Bound:
    """A lower bound on `problem`'s optimum; see the module docstring. `grids` shares node values with the
    problems bounded before on the same grid."""
    if any(not d for d in problem.domains.values()):
        return Bound(None, True, True, next(f"domain of {n} is empty" for n, d in problem.domains.items() if not d))
    on_grid = _grid_names(problem, max_points)
    evaluate = (grids or Grids()).evaluator(problem, on_grid)
    possible = np.ones(evaluate.env["__shape__"], dtype=bool)
    culprit = None
    try:
        for c in problem.constraints:
            (llo, lhi), (rlo, rhi) = evaluate(c.lhs), evaluate(c.rhs)
            holds = llo <= rhi if c.kind == "<=" else (llo <= rhi) & (rlo <= lhi)
            holds = np.broadcast_to(holds, possible.shape)
            if culprit is None and not holds.any():
                culprit = c.name
            possible &= holds
        lo = evaluate(problem.objective)[0]
    except _Overflow:
        try:
            return Bound(bounds(problem.objective, {n: (d[0], d[-1]) for n, d in problem.domains.items()})[0], False)
        except ValueError:
            return Bound(None, False)
    except (_NonPositiveDenominator, KeyError):
        return Bound(None, False)
    exact = len(on_grid) == len(problem.names)
    if not possible.any():
        return Bound(None, exact, True, culprit)
    return Bound(int(np.broadcast_to(lo, possible.shape)[possible].min()), exact)


class _Overflow(Exception):
    """A node, a partial product or a Rate's scaled amount could reach 2^62: int64 arrays could wrap."""


class _NonPositiveDenominator(Exception):
    """A division whose denominator can be zero or negative."""


def _grid_names(problem: Problem, max_points: int) -> list[str]:
    """The names enumerated: knobs first (two values each), then the block sizes with the fewest values,
    while the grid stays within `max_points`."""
    order = sorted(problem.names, key=lambda n: (len(problem.space(n)), n))
    chosen, points = [], 1
    for n in order:
        size = len(problem.space(n))
        if points * size > max_points:
            continue
        chosen.append(n)
        points *= size
    return chosen


def _grid(problem: Problem, on_grid: list[str]) -> dict:
    """name -> (lo, hi): for the names on the grid, arrays along their own axis of the grid (length 1 along
    the others: a node is computed over the axes of the names below it, broadcast to the whole grid only
    where constraints and objective meet); domain ends for the others."""
    spaces = [np.asarray(problem.space(n), dtype=np.int64) for n in on_grid]
    mesh = np.meshgrid(*spaces, indexing="ij", sparse=True) if spaces else []
    env: dict = {n: (m, m) for n, m in zip(on_grid, mesh)}
    env["__shape__"] = tuple(len(s) for s in spaces)
    for n in problem.names:
        if n not in env:
            space = problem.space(n)
            env[n] = (np.int64(space[0]), np.int64(space[-1]))
    return env


def _exact(*pairs) -> bool:
    return all(lo is hi for lo, hi in pairs)


def _hull(*corners) -> tuple:
    lo, hi = corners[0], corners[0]
    for c in corners[1:]:
        lo, hi = np.minimum(lo, c), np.maximum(hi, c)
    return lo, hi


class _Evaluator:
    """(lo, hi) of an expression at every grid point (arrays, or scalars for parts that do not vary),
    memoised per node, with a bound on each node's magnitude checked before its arrays are computed.
    Where a node's operands are exact (lo is hi: every name below it is on the grid) it is computed once."""

    def __init__(self, env: dict):
        self.env = env
        self.memo: dict[Expr, tuple] = {}
        self.mag: dict[Expr, int] = {}

    def __call__(self, e: Expr) -> tuple:
        got = self.memo.get(e)
        if got is None:
            got = self.memo[e] = self._node(e)
            if not isinstance(e, (Const, Var, Knob)):  # a leaf's bound already is its largest value
                # the bound a parent multiplies or sums is this node's largest value, not its structural bound
                # (a quotient's is its numerator's: ceil(1024 / tile_m) reaches 32, not 1024)
                lo, hi = got
                largest = int(np.max(np.abs(lo))) if lo is hi else max(int(np.max(np.abs(lo))),
                                                                       int(np.max(np.abs(hi))))
                if largest < self.mag[e]:
                    self.mag[e] = largest
        return got

    def _within(self, e: Expr, magnitude: int) -> None:
        if magnitude >= _LIMIT:
            raise _Overflow
        self.mag[e] = magnitude

    def _node(self, e: Expr) -> tuple:
        ev, mag = self, self.mag
        if isinstance(e, Const):
            self._within(e, abs(e.value))
            v = np.int64(e.value)
            return v, v
        if isinstance(e, (Var, Knob)):
            r = self.env[e.name]
            self._within(e, max(int(np.max(np.abs(r[0]))), int(np.max(np.abs(r[1])))))
            return r
        if isinstance(e, Add):
            parts = [ev(t) for t in e.terms]
            self._within(e, sum(mag[t] for t in e.terms))
            lo = sum(p[0] for p in parts)
            return (lo, lo) if _exact(*parts) else (lo, sum(p[1] for p in parts))
        if isinstance(e, Mul):
            one = np.int64(1)
            r, partial = (one, one), 1
            for f in e.factors:
                fr = ev(f)
                partial *= mag[f]
                self._within(e, partial)  # every partial product of the chain
                if _exact(r, fr):
                    v = r[0] * fr[0]
                    r = (v, v)
                else:
                    r = _hull(r[0] * fr[0], r[0] * fr[1], r[1] * fr[0], r[1] * fr[1])
            self._within(e, partial)
            return r
        if isinstance(e, (Max, Min)):
            parts = [ev(t) for t in e.items]
            self._within(e, max(mag[t] for t in e.items))
            pick = np.maximum if isinstance(e, Max) else np.minimum
            lo = parts[0][0]
            for p in parts[1:]:
                lo = pick(lo, p[0])
            if _exact(*parts):
                return lo, lo
            hi = parts[0][1]
            for p in parts[1:]:
                hi = pick(hi, p[1])
            return lo, hi
        if isinstance(e, (CeilDiv, FloorDiv)):
            a, b = ev(e.num), ev(e.den)
            if np.min(b[0]) <= 0:
                raise _NonPositiveDenominator
            self._within(e, mag[e.num])  # |a / b| <= |a| for b >= 1, rounded either way
            div = ceil_int if isinstance(e, CeilDiv) else (lambda x, y: x // y)
            if _exact(a, b):
                v = div(a[0], b[0])
                return v, v
            # monotone in each argument for a positive denominator: the corners bound it
            return _hull(div(a[0], b[0]), div(a[0], b[1]), div(a[1], b[0]), div(a[1], b[1]))
        if isinstance(e, Select):
            c, t, f = (ev(x) for x in (e.cond, e.if_true, e.if_false))
            self._within(e, max(mag[e.if_true], mag[e.if_false]))
            if _exact(c, t, f):
                v = np.where(c[0] == 1, t[0], f[0])
                return v, v
            # knob fixed at 1 -> the true branch; fixed at 0 -> the false one; free -> either
            return (np.where(c[0] == 1, t[0], np.where(c[1] == 0, f[0], np.minimum(t[0], f[0]))),
                    np.where(c[0] == 1, t[1], np.where(c[1] == 0, f[1], np.maximum(t[1], f[1]))))
        if isinstance(e, Rate):
            a = ev(e.amount)
            scaled = mag[e.amount] * e.per_cycle_den  # the amount times the denominator, then divided
            if scaled >= _LIMIT:
                raise _Overflow
            self._within(e, -(-scaled // e.per_cycle_num))
            lo = ceil_int(a[0] * e.per_cycle_den, e.per_cycle_num)
            return (lo, lo) if _exact(a) else (lo, ceil_int(a[1] * e.per_cycle_den, e.per_cycle_num))
        raise TypeError(f"unknown expression node {type(e).__name__}")
