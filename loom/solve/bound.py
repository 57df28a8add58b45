"""A cheap, provable lower bound on a problem's optimum, for solving candidates in bound order.

The decision space of a candidate is small (a few block sizes with a handful of divisors each, a few
0/1 knobs), so the bound evaluates the whole problem over a grid of assignments at once, with numpy:
every node of the objective and of the constraints becomes a pair of arrays (lo, hi) over the grid's
axes of the names below it (broadcast to the whole grid only where a constraint or the objective is
read: most nodes depend on one or two names and cost a few entries, not the whole grid). Names on
the grid take their exact value at each point (lo == hi); a name left off the grid (when the grid
would exceed `MAX_POINTS`) ranges over its whole domain, and the node pairs are then interval
arithmetic (the same rules as `expr.bounds`, sound for every assignment the point stands for). A
point is dropped when some constraint cannot hold anywhere in its box (the intervals of its two
sides do not meet); the bound is the least `lo` of the objective over the points left. Every
feasible assignment lies in the box of a point that is kept and its objective is at least that
point's `lo`, so the bound is at most the optimum. When every name is on the grid the boxes are
single assignments and the bound *is* the optimum.

Exactness of the integer arithmetic: before the arrays are built, the same interval rules run once
over the whole domains with Python integers; if any node (or a partial product of a Mul, or a
Rate's scaled amount) can reach 2^62 the arrays could wrap, so the bound falls back to that
Python-integer interval bound (weaker, still sound). CP-SAT refuses such a model anyway.
"""

from __future__ import annotations

import itertools
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
    bounds,
)
from loom.model.problem import Problem

__all__ = ["Bound", "MAX_POINTS", "lower_bound"]

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


def lower_bound(problem: Problem, max_points: int = MAX_POINTS) -> Bound:
    """A lower bound on `problem`'s optimum; see the module docstring."""
    if any(not d for d in problem.domains.values()):
        return Bound(None, True, True, next(f"domain of {n} is empty" for n, d in problem.domains.items() if not d))
    var_bounds = {n: (d[0], d[-1]) for n, d in problem.domains.items()}
    exprs = [problem.objective] + [e for c in problem.constraints for e in (c.lhs, c.rhs)]
    try:
        if not _fits(exprs, var_bounds):
            return Bound(bounds(problem.objective, var_bounds)[0], False)
    except (ValueError, KeyError):  # a denominator that can reach 0: the solver reports it
        return Bound(None, False)
    on_grid = _grid_names(problem, max_points)
    env = _grid(problem, on_grid)
    memo: dict[Expr, tuple] = {}
    possible = np.ones(env["__shape__"], dtype=bool)
    culprit = None
    for c in problem.constraints:
        (llo, lhi), (rlo, rhi) = _eval(c.lhs, env, memo), _eval(c.rhs, env, memo)
        holds = llo <= rhi if c.kind == "<=" else (llo <= rhi) & (rlo <= lhi)
        holds = np.broadcast_to(holds, possible.shape)
        if culprit is None and not holds.any():
            culprit = c.name
        possible &= holds
    exact = len(on_grid) == len(problem.names)
    if not possible.any():
        return Bound(None, exact, True, culprit)
    lo = np.broadcast_to(_eval(problem.objective, env, memo)[0], possible.shape)
    return Bound(int(lo[possible].min()), exact)


def _fits(exprs: list[Expr], var_bounds: dict[str, tuple[int, int]]) -> bool:
    """Whether every node's interval (and every intermediate the arrays compute) stays below 2^62, expression
    by expression; subtrees the expressions share are bounded and checked once."""
    memo: dict[Expr, tuple[int, int]] = {}
    for e in exprs:
        seen = len(memo)
        bounds(e, var_bounds, memo)  # raises on a denominator that can be non-positive
        if not all(_node_fits(node, lo, hi, memo) for node, (lo, hi) in itertools.islice(memo.items(), seen, None)):
            return False
    return True


def _node_fits(node: Expr, lo: int, hi: int, memo: dict[Expr, tuple[int, int]]) -> bool:
    if max(abs(lo), abs(hi)) >= _LIMIT:
        return False
    if isinstance(node, Mul):  # partial products of the chain
        plo, phi = 1, 1
        for f in node.factors:
            flo, fhi = memo[f]
            corners = (plo * flo, plo * fhi, phi * flo, phi * fhi)
            plo, phi = min(corners), max(corners)
            if max(abs(plo), abs(phi)) >= _LIMIT:
                return False
    elif isinstance(node, Rate):
        alo, ahi = memo[node.amount]
        if max(abs(alo), abs(ahi)) * node.per_cycle_den >= _LIMIT:
            return False
    elif isinstance(node, Add) and sum(max(abs(a), abs(b)) for a, b in (memo[t] for t in node.terms)) >= _LIMIT:
        return False
    return True


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


def _ceil(a, b):
    return -((-a) // b)


def _exact(*pairs) -> bool:
    return all(lo is hi for lo, hi in pairs)


def _hull(*corners) -> tuple:
    lo, hi = corners[0], corners[0]
    for c in corners[1:]:
        lo, hi = np.minimum(lo, c), np.maximum(hi, c)
    return lo, hi


def _eval(e: Expr, env: dict, memo: dict) -> tuple:
    """(lo, hi) of `e` at every grid point (arrays, or scalars for parts that do not vary). Where a
    node's operands are exact (lo is hi: every name below it is on the grid) it is computed once."""
    got = memo.get(e)
    if got is not None:
        return got
    if isinstance(e, Const):
        v = np.int64(e.value)
        r = (v, v)
    elif isinstance(e, (Var, Knob)):
        r = env[e.name]
    elif isinstance(e, Add):
        parts = [_eval(t, env, memo) for t in e.terms]
        lo = sum(p[0] for p in parts)
        r = (lo, lo) if _exact(*parts) else (lo, sum(p[1] for p in parts))
    elif isinstance(e, Mul):
        one = np.int64(1)
        r = (one, one)
        for f in e.factors:
            fr = _eval(f, env, memo)
            if _exact(r, fr):
                v = r[0] * fr[0]
                r = (v, v)
            else:
                r = _hull(r[0] * fr[0], r[0] * fr[1], r[1] * fr[0], r[1] * fr[1])
    elif isinstance(e, (Max, Min)):
        parts = [_eval(t, env, memo) for t in e.items]
        pick = np.maximum if isinstance(e, Max) else np.minimum
        lo = parts[0][0]
        for p in parts[1:]:
            lo = pick(lo, p[0])
        if _exact(*parts):
            r = (lo, lo)
        else:
            hi = parts[0][1]
            for p in parts[1:]:
                hi = pick(hi, p[1])
            r = (lo, hi)
    elif isinstance(e, (CeilDiv, FloorDiv)):
        a, b = _eval(e.num, env, memo), _eval(e.den, env, memo)
        div = _ceil if isinstance(e, CeilDiv) else (lambda x, y: x // y)
        if _exact(a, b):
            v = div(a[0], b[0])
            r = (v, v)
        else:  # monotone in each argument for a positive denominator: the corners bound it
            r = _hull(div(a[0], b[0]), div(a[0], b[1]), div(a[1], b[0]), div(a[1], b[1]))
    elif isinstance(e, Select):
        c, t, f = (_eval(x, env, memo) for x in (e.cond, e.if_true, e.if_false))
        if _exact(c, t, f):
            v = np.where(c[0] == 1, t[0], f[0])
            r = (v, v)
        else:  # knob fixed at 1 -> the true branch; fixed at 0 -> the false one; free -> either
            r = (np.where(c[0] == 1, t[0], np.where(c[1] == 0, f[0], np.minimum(t[0], f[0]))),
                 np.where(c[0] == 1, t[1], np.where(c[1] == 0, f[1], np.maximum(t[1], f[1]))))
    elif isinstance(e, Rate):
        a = _eval(e.amount, env, memo)
        lo = _ceil(a[0] * e.per_cycle_den, e.per_cycle_num)
        r = (lo, lo) if _exact(a) else (lo, _ceil(a[1] * e.per_cycle_den, e.per_cycle_num))
    else:
        raise TypeError(f"unknown expression node {type(e).__name__}")
    memo[e] = r
    return r
