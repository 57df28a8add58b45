"""Interval arithmetic over expressions: a sound (lo, hi) of a tree given ranges of its variables."""

from __future__ import annotations

from collections.abc import Mapping

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
    apply_div,
    ceil_int,
    pretty,
)

__all__ = ["bounds"]


def bounds(
    e: Expr, var_bounds: Mapping[str, tuple[int, int]], memo: dict[Expr, tuple[int, int]] | None = None
) -> tuple[int, int]:
    """Sound (lo, hi) of `e` by interval arithmetic, given (lo, hi) of each Var; knobs are in [0, 1].

    Not always tight (correlated operands are treated as independent) but never wrong.
    A denominator whose interval reaches 0 or below is a ValueError. `memo` may be shared
    between calls over the same `var_bounds`."""
    memo = {} if memo is None else memo

    def b(n: Expr) -> tuple[int, int]:
        got = memo.get(n)
        if got is not None:
            return got
        if isinstance(n, Const):
            r = (n.value, n.value)
        elif isinstance(n, Var):
            if n.name not in var_bounds:
                raise KeyError(f"no domain for variable '{n.name}'")
            r = var_bounds[n.name]
        elif isinstance(n, Knob):
            r = (0, 1)
        elif isinstance(n, Add):
            parts = [b(t) for t in n.terms]
            r = (sum(p[0] for p in parts), sum(p[1] for p in parts))
        elif isinstance(n, Mul):
            r = (1, 1)
            for f in n.factors:
                lo, hi = b(f)
                corners = (r[0] * lo, r[0] * hi, r[1] * lo, r[1] * hi)
                r = (min(corners), max(corners))
        elif isinstance(n, (Max, Min)):
            parts = [b(t) for t in n.items]
            pick = max if isinstance(n, Max) else min
            r = (pick(p[0] for p in parts), pick(p[1] for p in parts))
        elif isinstance(n, (CeilDiv, FloorDiv)):
            (alo, ahi), (blo, bhi) = b(n.num), b(n.den)
            if blo <= 0:
                raise ValueError(f"denominator of {pretty(n)} can be {blo}; it must be positive")
            # Monotone in each argument for a positive denominator: the corners bound it.
            corners = [apply_div(type(n), a, d) for a in (alo, ahi) for d in (blo, bhi)]
            r = (min(corners), max(corners))
        elif isinstance(n, Select):
            (tlo, thi), (flo, fhi) = b(n.if_true), b(n.if_false)
            r = (min(tlo, flo), max(thi, fhi))
        elif isinstance(n, Rate):
            lo, hi = b(n.amount)
            r = (ceil_int(lo * n.per_cycle_den, n.per_cycle_num), ceil_int(hi * n.per_cycle_den, n.per_cycle_num))
        else:
            raise TypeError(f"unknown expression node {type(n).__name__}")
        memo[n] = r
        return r

    return b(e)
