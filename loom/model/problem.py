"""What the model hands the solver: a latency expression to minimise under named constraints.

A `Problem` is an objective, named legality `Constraint`s, a finite sorted domain per block size
and a list of 0/1 pipeline knobs, all written as `loom.model.expr` trees. Stage 5 builds one per
candidate (`loom.model.constraints`); stage 6 solves it (`loom.solve.cpsat`, which lowers it to
CP-SAT, or `brute_force`). It lives with the model so that the model never imports the solver.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from loom.errors import LoomError
from loom.model.expr import Expr, as_expr, evaluate, names_below, pretty

__all__ = ["Constraint", "Problem", "SolverError"]


class SolverError(LoomError):
    """A problem the solver cannot take as given (undeclared name, denominator that can be 0, ...)."""

    kind = "solver error"


@dataclass(frozen=True)
class Constraint:
    """`lhs <= rhs` or `lhs == rhs`, with a name a person can read in a report."""

    name: str
    lhs: Expr
    rhs: Expr
    kind: Literal["<=", "=="] = "<="

    def __post_init__(self) -> None:
        object.__setattr__(self, "lhs", as_expr(self.lhs))
        object.__setattr__(self, "rhs", as_expr(self.rhs))
        if self.kind not in ("<=", "=="):
            raise ValueError(f"constraint '{self.name}': kind must be '<=' or '==', got {self.kind!r}")

    def holds(self, env: Mapping[str, int]) -> bool:
        lhs, rhs = evaluate(self.lhs, env), evaluate(self.rhs, env)
        return lhs <= rhs if self.kind == "<=" else lhs == rhs

    def __str__(self) -> str:
        return f"{self.name}: {pretty(self.lhs)} {self.kind} {pretty(self.rhs)}"


@dataclass(frozen=True)
class Problem:
    """Minimise `objective` subject to `constraints`; each Var ranges over its domain, each knob over {0, 1}.

    Domains are stored sorted and without duplicates; knobs sorted. Every Var and Knob used must
    be declared, and no name may be both."""

    objective: Expr
    constraints: list[Constraint] = field(default_factory=list)
    domains: dict[str, list[int]] = field(default_factory=dict)
    knobs: list[str] = field(default_factory=list)
    name: str = ""
    prefer_on: list[str] = field(default_factory=list)  # knobs whose tie-break ranks on before off

    def __post_init__(self) -> None:
        object.__setattr__(self, "objective", as_expr(self.objective))
        object.__setattr__(self, "constraints", list(self.constraints))
        doms = {n: sorted({int(v) for v in vals}) for n, vals in sorted(self.domains.items())}
        object.__setattr__(self, "domains", doms)
        object.__setattr__(self, "knobs", sorted(set(self.knobs)))
        both = sorted(set(doms) & set(self.knobs))
        if both:
            raise SolverError(f"problem '{self.name}': {', '.join(both)} declared both as variable and knob")
        knobs = set(self.knobs)
        for where, e in self._exprs():
            variables, knob_names = names_below(e)
            for name in sorted(variables - doms.keys()):
                raise SolverError(f"problem '{self.name}': variable '{name}' in {where} has no domain")
            for name in sorted(knob_names - knobs):
                raise SolverError(f"problem '{self.name}': knob '{name}' in {where} is not declared")

    def _exprs(self) -> Iterable[tuple[str, Expr]]:
        yield "the objective", self.objective
        for c in self.constraints:
            yield f"constraint '{c.name}'", c.lhs
            yield f"constraint '{c.name}'", c.rhs

    @property
    def names(self) -> list[str]:
        """All decision names, sorted: the order of the tie-break."""
        return sorted([*self.domains, *self.knobs])

    def space(self, name: str) -> list[int]:
        return [0, 1] if name in self.knobs else self.domains[name]

    def tie_order(self, name: str) -> list[int]:
        """`name`'s values in the tie-break's order: ascending, except a knob of `prefer_on` (on first)."""
        return [1, 0] if name in self.prefer_on else self.space(name)

    def preferring_on(self, values: dict[str, int], objective: int) -> dict[str, int]:
        """`values` with each knob of `prefer_on` that is off turned on where that keeps the objective and
        every constraint: a double-buffering knob the model finds free is taken, as overlapping a transfer
        costs no time, only L1, which the constraints bound (ties left to CP-SAT; with the tie-break, a no-op)."""
        for name in self.prefer_on:
            if values.get(name) == 0:
                trial = {**values, name: 1}
                if evaluate(self.objective, trial) <= objective and all(c.holds(trial) for c in self.constraints):
                    values = trial
        return values
