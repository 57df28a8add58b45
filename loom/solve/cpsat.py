"""One CP-SAT problem per schedule candidate. The only module in Loom that imports OR-Tools.

A `Problem` (`loom.model.problem`: the model builds it, this module only reads
it) is a latency expression to minimise, named legality constraints, a finite
sorted domain per block size and a list of 0/1 pipeline knobs, all written as
`loom.model.expr` trees. `solve` lowers it to one CP-SAT model:

- Var -> integer variable over `Domain.FromValues(domain)`; Knob -> boolean.
- every other node -> one auxiliary integer variable whose bounds come from
  interval arithmetic over the domains (`intervals.bounds`); identical subtrees
  (structural equality, labels ignored) share one variable.
- Add -> linear equality; Mul -> a chain of binary `AddMultiplicationEquality`
  times the constant factor; Max/Min -> `AddMaxEquality`/`AddMinEquality`;
  Select -> two equalities under `OnlyEnforceIf(knob)` / `OnlyEnforceIf(~knob)`.
- CeilDiv/FloorDiv by a constant d -> linear (d*q <= a <= d*q + d-1 for floor,
  d*q - d+1 <= a <= d*q for ceil); by a variable -> `AddDivisionEquality` on
  a (ceil: a + b - 1) when a cannot be negative (CP-SAT truncates towards 0,
  which equals floor only there), else p = b*q by multiplication plus the two
  linear inequalities. Rate(a, n, d) is CeilDiv(d*a, n).

Overflow. CP-SAT works on 64-bit integers. Every node's interval, every
linear sum (sum of the operands' largest magnitudes) and every constraint
(|lhs| + |rhs|) must stay within +-2^62. Loom does not rescale the model: a
scaled objective would be optimised only approximately and the proof of
optimality would no longer be about the real cycles. Instead `solve` raises
`ModelOverflowError` naming the constraint (or "objective"), the offending
subterm and its bound, before any solving. The stage that builds expressions
should then use coarser units (cycles of a block, KiB) or tighter domains.
`evaluate` and `brute_force` use Python integers and never overflow.

Optimum and ties. Among optimal assignments the answer is the
lexicographically smallest one, comparing values in the order of the sorted
names of all variables and knobs together (`brute_force` enumerates in that
order), a knob of `Problem.prefer_on` ranking on before off (`preferring_on`).
The tie-break is the mixed-radix index of the assignment (each name's rank in
its domain via `AddElement`, N = number of assignments):
- if (T_hi - T_lo + 1) * N < 2^62, one solve minimises (T - T_lo) * N + index;
- otherwise a second solve fixes T at its proven optimum and minimises the
  index, hinted with the first solution (if it cannot finish in the time
  left, the first solution stands);
- only if N itself reaches 2^62, or with `tie_break=False`, ties are left to
  CP-SAT and may differ from `brute_force` (the objective value does not).
So a proven optimum is one assignment, whatever the number of workers or the
timing; a FEASIBLE answer cut off by the time limit is not.

Infeasibility. The main solve uses plain constraints (no assumptions, which
restrict presolve). When it reports INFEASIBLE, an explanation model puts an
enforcement literal on every constraint, passes them as assumptions and reads
`SufficientAssumptionsForInfeasibility()`; the core is then shrunk by deletion
(drop one constraint, re-check) to a minimal infeasible set, whose names are
returned in constraint order. The explanation has its own budget of
`time_limit_s`; a re-check it cannot finish keeps its constraint (the set is
then sufficient but perhaps not minimal). Empty domains are reported without
solving ("domain of tile_m is empty").

Parameters. `time_limit_s`, `seed` and `workers` set CP-SAT's
`max_time_in_seconds`, `random_seed` and `num_workers`; nothing else is tuned.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import time
from collections.abc import Iterable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Literal

from ortools.sat.python import cp_model

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
    evaluate,
    free_names,
    pretty,
)
from loom.model.intervals import bounds
from loom.model.problem import Constraint, Problem, SolverError

__all__ = [
    "LIMIT", "Constraint", "ModelOverflowError", "Problem", "Solution", "SolverError", "brute_force", "solve",
    "solve_many", "solve_many_within",
]

LIMIT = 2**62
Status = Literal["OPTIMAL", "FEASIBLE", "INFEASIBLE", "MODEL_INVALID", "UNKNOWN"]


class ModelOverflowError(SolverError):
    """Some term of the model can leave CP-SAT's safe 64-bit range; nothing was solved."""

    kind = "solver overflow"


@dataclass(frozen=True)
class Solution:
    """What a solve returns.

    `values` holds every variable and knob (empty unless a solution was found); `objective` is
    `evaluate(problem.objective, values)`, checked equal to CP-SAT's; `best_bound` is a proven lower
    bound on the objective (the objective itself when OPTIMAL) and `gap` is
    (objective - best_bound) / max(1, |objective|). `infeasible_constraints` names a minimal set of
    constraints that cannot hold together, or the empty domains. `wall_time_s` covers building and
    solving and takes no part in equality, so two runs can be compared with ==."""

    status: Status
    values: dict[str, int]
    objective: int | None
    best_bound: int | None
    gap: float | None
    proven_optimal: bool
    wall_time_s: float = field(compare=False)
    infeasible_constraints: list[str] = field(default_factory=list)
    name: str = ""
    message: str = ""

    @property
    def feasible(self) -> bool:
        return self.status in ("OPTIMAL", "FEASIBLE")


# ---------------------------------------------------------------------------
# Lowering


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Lowering:
    """Lowers expression trees into one CpModel, one auxiliary variable per distinct node."""

    def __init__(self, model: cp_model.CpModel, problem: Problem):
        self.model = model
        self.problem = problem
        self.where = ""  # "objective" or "constraint '...'": where an error is reported
        self.refs: dict[str, cp_model.IntVar] = {}
        for n in problem.names:
            if n in problem.knobs:
                self.refs[n] = model.new_bool_var(n)
            else:
                dom = problem.domains[n]
                self._check_value(max(abs(dom[0]), abs(dom[-1])), Var(n), f"domain of {n}")
                self.refs[n] = model.new_int_var_from_domain(cp_model.Domain.from_values(dom), n)
        self.var_bounds = {n: (d[0], d[-1]) for n, d in problem.domains.items()}
        self.bounds_memo: dict[Expr, tuple[int, int]] = {}
        self.cache: dict[Expr, cp_model.IntVar | int] = {}
        self.counter = itertools.count()  # names of auxiliary variables: _0, _1, ...

    def _check_value(self, magnitude: int, e: Expr, what: str = "") -> None:
        if magnitude >= LIMIT:
            names = ", ".join(free_names(e)[0]) or "none"
            raise ModelOverflowError(
                f"{self.where or what}: `{_short(pretty(e))}` can reach magnitude {magnitude} >= 2^62, "
                f"outside CP-SAT's safe range; Loom does not rescale silently: express this term in "
                f"coarser units or tighten the domains of its variables ({names})"
            )

    def bounds(self, e: Expr) -> tuple[int, int]:
        try:
            lo, hi = bounds(e, self.var_bounds, self.bounds_memo)
        except ValueError as err:
            raise SolverError(f"{self.where}: {err}") from None
        self._check_value(max(abs(lo), abs(hi)), e)
        return lo, hi

    def _magnitude(self, e: Expr) -> int:
        lo, hi = self.bounds(e)
        return max(abs(lo), abs(hi))

    def _new(self, e: Expr) -> cp_model.IntVar:
        lo, hi = self.bounds(e)
        return self.model.new_int_var(lo, hi, f"_{next(self.counter)}")

    def lower(self, e: Expr) -> cp_model.IntVar | int:
        got = self.cache.get(e)
        if got is None:
            got = self._lower(e)
            self.cache[e] = got
        return got

    def _lower(self, e: Expr) -> cp_model.IntVar | int:
        m = self.model
        if isinstance(e, Const):
            self.bounds(e)
            return e.value
        if isinstance(e, (Var, Knob)):
            return self.refs[e.name]
        if isinstance(e, Add):
            parts = [self.lower(t) for t in e.terms]
            self._check_value(sum(self._magnitude(t) for t in e.terms), e)
            v = self._new(e)
            m.add(v == sum(parts))
            return v
        if isinstance(e, Mul):
            const = math.prod(f.value for f in e.factors if isinstance(f, Const))
            rest = [f for f in e.factors if not isinstance(f, Const)]
            if not rest:
                return self.bounds(e)[0]
            if len(rest) < len(e.factors):  # c * (product of the rest): linear in one variable
                inner = self.lower(rest[0] if len(rest) == 1 else Mul(tuple(rest)))
                v = self._new(e)
                m.add(v == const * inner)
                return v
            head = rest[0] if len(rest) == 2 else Mul(tuple(rest[:-1]))  # chain of binary products
            a, b = self.lower(head), self.lower(rest[-1])
            v = self._new(e)
            m.add_multiplication_equality(v, [a, b])
            return v
        if isinstance(e, (Max, Min)):
            parts = [self.lower(t) for t in e.items]
            v = self._new(e)
            (m.add_max_equality if isinstance(e, Max) else m.add_min_equality)(v, parts)
            return v
        if isinstance(e, Select):
            knob = self.refs[e.cond.name]
            t, f = self.lower(e.if_true), self.lower(e.if_false)
            v = self._new(e)
            m.add(v == t).only_enforce_if(knob)
            m.add(v == f).only_enforce_if(~knob)
            return v
        if isinstance(e, Rate):
            scaled = e.amount if e.per_cycle_den == 1 else Mul((Const(e.per_cycle_den), e.amount))
            return self.lower(CeilDiv(scaled, Const(e.per_cycle_num)))
        if isinstance(e, (CeilDiv, FloorDiv)):
            return self._lower_div(e, ceil=isinstance(e, CeilDiv))
        raise TypeError(f"unknown expression node {type(e).__name__}")

    def _lower_div(self, e: CeilDiv | FloorDiv, ceil: bool) -> cp_model.IntVar:
        m = self.model
        q = self._new(e)  # also checks that the denominator is positive
        a, b = self.lower(e.num), self.lower(e.den)
        if isinstance(b, int):
            # floor: b*q <= a <= b*q + b-1 ; ceil: b*q - (b-1) <= a <= b*q
            self._check_value(b * self._magnitude(e) + self._magnitude(e.num) + b, e)
            low, high = (b * q - (b - 1), b * q) if ceil else (b * q, b * q + (b - 1))
            m.add(a >= low)
            m.add(a <= high)
            return q
        a_lo, a_hi = self.bounds(e.num)
        b_lo, b_hi = self.bounds(e.den)
        if a_lo >= 0:  # truncation == floor here
            if ceil:
                self._check_value(a_hi + b_hi, e)
                num = m.new_int_var(a_lo + b_lo - 1, a_hi + b_hi - 1, f"_{next(self.counter)}")
                m.add(num == a + b - 1)
                a = num
            m.add_division_equality(q, a, b)
            return q
        q_lo, q_hi = self.bounds(e)
        corners = [x * y for x in (q_lo, q_hi) for y in (b_lo, b_hi)]
        self._check_value(max(abs(c) for c in corners) + self._magnitude(e.num) + b_hi, e)
        p = m.new_int_var(min(corners), max(corners), f"_{next(self.counter)}")
        m.add_multiplication_equality(p, [b, q])
        if ceil:  # a <= b*q <= a + b-1
            m.add(p >= a)
            m.add(p - a <= b - 1)
        else:  # b*q <= a <= b*q + b-1
            m.add(p <= a)
            m.add(a - p <= b - 1)
        return q


@dataclass
class _Built:
    model: cp_model.CpModel
    refs: dict[str, cp_model.IntVar]
    objective: cp_model.IntVar | int
    objective_lo: int
    literals: list[cp_model.IntVar] = field(default_factory=list)
    tiebreak: cp_model.LinearExpr | None = None  # mixed-radix index of the assignment
    combined_radix: int = 0  # N when the objective is (T - T_lo) * N + tiebreak, else 0


def _build(problem: Problem, *, explain: bool, tie_break: bool) -> _Built:
    model = cp_model.CpModel()
    low = _Lowering(model, problem)
    literals = []
    for i, c in enumerate(problem.constraints):
        low.where = f"constraint '{c.name}'"
        lhs, rhs = low.lower(c.lhs), low.lower(c.rhs)
        low._check_value(low._magnitude(c.lhs) + low._magnitude(c.rhs), c.lhs)
        ct = model.add(lhs <= rhs) if c.kind == "<=" else model.add(lhs == rhs)
        if explain:
            lit = model.new_bool_var(f"enforce_{i}")
            ct.only_enforce_if(lit)
            literals.append(lit)
    low.where = "objective"
    obj = low.lower(problem.objective)
    obj_lo, obj_hi = low.bounds(problem.objective)
    built = _Built(model, low.refs, obj, obj_lo, literals)
    if explain:
        model.add_assumptions(literals)
        return built
    radix = math.prod(len(problem.space(n)) for n in problem.names)
    if tie_break and 1 < radix < LIMIT:
        built.tiebreak = _tiebreak(model, problem, low.refs, radix)
        if (obj_hi - obj_lo + 1) * radix < LIMIT and 2 * max(abs(obj_lo), abs(obj_hi)) < LIMIT:
            shifted = model.new_int_var(0, obj_hi - obj_lo, "objective_shifted")
            model.add(shifted == obj - obj_lo)
            model.minimize(shifted * radix + built.tiebreak)
            built.combined_radix = radix
            return built
    model.minimize(obj)
    return built


def _tiebreak(model: cp_model.CpModel, problem: Problem, refs: dict[str, cp_model.IntVar], radix: int):
    """Mixed-radix index of the assignment: each name's rank in its domain, first name most significant."""
    terms, weight = [], radix
    for n in problem.names:
        space = problem.space(n)
        weight //= len(space)
        if len(space) == 1:
            continue
        if n in problem.knobs:
            rank = 1 - refs[n] if n in problem.prefer_on else refs[n]
        else:
            rank = model.new_int_var(0, len(space) - 1, f"rank_{n}")
            model.add_element(rank, space, refs[n])
        terms.append(weight * rank)
    return sum(terms)


# ---------------------------------------------------------------------------
# Solving


def _solver(time_limit_s: float, seed: int, workers: int) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(time_limit_s, 0.0)
    solver.parameters.random_seed = seed
    solver.parameters.num_workers = workers
    solver.parameters.log_search_progress = False
    # Loom's problems are small (a few block sizes, a few knobs): probing at presolve costs more
    # than it saves (measured: about half of a typical 20 ms solve).
    solver.parameters.cp_model_probing_level = 0
    # Nor does the LP relaxation: a few dozen variables are searched faster without it (measured:
    # 15 -> 10 ms per GEMM candidate); optimality is still proven by search.
    solver.parameters.linearization_level = 0
    return solver


def _infeasible(problem: Problem, reasons: list[str], start: float) -> Solution:
    elapsed = time.perf_counter() - start
    return Solution("INFEASIBLE", {}, None, None, None, False, elapsed, reasons, problem.name)


def _empty_domains(problem: Problem) -> list[str]:
    return [f"domain of {n} is empty" for n, d in problem.domains.items() if not d]


def solve(
    problem: Problem,
    *,
    time_limit_s: float = 10.0,
    seed: int = 0,
    workers: int = 1,
    tie_break: bool = True,
    explain: bool = True,
) -> Solution:
    """Solve one problem with CP-SAT; see the module docstring for the encoding and guarantees.

    Raises `ModelOverflowError` if the model could leave CP-SAT's 64-bit range, `SolverError` if a
    denominator can be non-positive. `explain=False` skips naming the constraints of an infeasible
    problem (the explanation costs one extra solve per constraint in the core)."""
    start = time.perf_counter()
    empty = _empty_domains(problem)
    if empty:
        return _infeasible(problem, empty, start)
    built = _build(problem, explain=False, tie_break=tie_break)
    solver = _solver(time_limit_s, seed, workers)
    status: Status = solver.status_name(solver.solve(built.model))  # type: ignore[assignment]
    if status == "OPTIMAL" and built.tiebreak is not None and not built.combined_radix:
        solver = _second_phase(built, solver, time_limit_s - (time.perf_counter() - start), seed, workers)
    values: dict[str, int] = {}
    objective = best_bound = gap = None
    culprits: list[str] = []
    message = ""
    if status in ("OPTIMAL", "FEASIBLE"):
        values = {n: int(solver.value(v)) for n, v in built.refs.items()}
        objective = evaluate(problem.objective, values)
        if objective != int(solver.value(built.objective)):
            raise SolverError(f"internal: CP-SAT's objective {solver.value(built.objective)} differs from "
                              f"the expression's value {objective} at {values}")
        values = problem.preferring_on(values, objective)
        objective = evaluate(problem.objective, values)
        broken = [c.name for c in problem.constraints if not c.holds(values)]
        if broken:
            raise SolverError(f"internal: CP-SAT's solution {values} violates {broken}")
        if status == "OPTIMAL":
            best_bound, gap = objective, 0.0
        else:
            raw = math.ceil(solver.best_objective_bound - 1e-6)
            radix = built.combined_radix
            best_bound = built.objective_lo + raw // radix if radix else raw
            best_bound = min(best_bound, objective)
            gap = (objective - best_bound) / max(1, abs(objective))
    elif status == "INFEASIBLE":
        if explain:
            culprits = _explain(problem, time_limit_s, seed, workers)
    elif status == "MODEL_INVALID":
        message = built.model.validate()
    else:
        message = f"no solution found within {time_limit_s} s"
    return Solution(status, values, objective, best_bound, gap, status == "OPTIMAL",
                    time.perf_counter() - start, culprits, problem.name, message)


def _second_phase(
    built: _Built, first: cp_model.CpSolver, time_limit_s: float, seed: int, workers: int
) -> cp_model.CpSolver:
    """With T fixed at its proven optimum, minimise the tie-break; the first solution is the hint.

    If the second solve finds nothing better in time (it always has the hint), the first stands."""
    model = built.model
    model.add(built.objective == first.value(built.objective))
    for var in built.refs.values():
        model.add_hint(var, first.value(var))
    model.minimize(built.tiebreak)
    second = _solver(max(time_limit_s, 0.01), seed, workers)
    ok = second.status_name(second.solve(model)) in ("OPTIMAL", "FEASIBLE")
    return second if ok else first


def _explain(problem: Problem, time_limit_s: float, seed: int, workers: int) -> list[str]:
    """Names of a minimal set of constraints that cannot hold together (see module docstring)."""
    built = _build(problem, explain=True, tie_break=False)
    model, lits = built.model, built.literals
    owner = {lit.index: i for i, lit in enumerate(lits)}
    deadline = time.perf_counter() + time_limit_s

    def core_of(subset: list[int]) -> list[int] | None:
        """A sorted infeasible subset of `subset`, or None if it is (or was not proven) infeasible."""
        model.clear_assumptions()
        model.add_assumptions([lits[i] for i in subset])
        solver = _solver(max(deadline - time.perf_counter(), 0.01), seed, workers)
        if solver.status_name(solver.solve(model)) != "INFEASIBLE":
            return None
        return sorted(owner[i] for i in solver.sufficient_assumptions_for_infeasibility() if i in owner)

    core = core_of(list(range(len(lits))))
    if core is None:
        return []
    if not core:
        return ["(no constraint: the expressions alone admit no value)"]
    necessary: set[int] = set()
    while (pick := next((c for c in core if c not in necessary), None)) is not None:
        smaller = core_of([c for c in core if c != pick])
        if smaller is None:
            necessary.add(pick)
        else:
            core = smaller  # every necessary constraint is in it: necessity is inherited by subsets
    return [problem.constraints[i].name for i in core]


def brute_force(problem: Problem, *, max_assignments: int = 1_000_000) -> Solution:
    """Enumerate every assignment (tests, tiny problems). Same optimum and tie rule as `solve`;
    on infeasibility a minimal infeasible set found by deletion in constraint order."""
    start = time.perf_counter()
    empty = _empty_domains(problem)
    if empty:
        return _infeasible(problem, empty, start)
    for where, e in problem._exprs():  # same positivity check of denominators as `solve`
        try:
            bounds(e, {n: (d[0], d[-1]) for n, d in problem.domains.items()})
        except ValueError as err:
            raise SolverError(f"{where}: {err}") from None
    names = problem.names
    spaces = [problem.tie_order(n) for n in names]
    total = math.prod(len(s) for s in spaces)
    if total > max_assignments:
        raise SolverError(
            f"problem '{problem.name}' has {total} assignments, over brute force's {max_assignments}"
        )
    envs = [dict(zip(names, combo)) for combo in itertools.product(*spaces)]  # lexicographic order

    def feasible(cs: list[Constraint]) -> list[dict[str, int]]:
        return [env for env in envs if all(c.holds(env) for c in cs)]

    ok = feasible(problem.constraints)
    if ok:
        best = min(ok, key=lambda env: evaluate(problem.objective, env))  # first minimum: lexicographic
        value = evaluate(problem.objective, best)
        elapsed = time.perf_counter() - start
        return Solution("OPTIMAL", best, value, value, 0.0, True, elapsed, [], problem.name)
    core = list(problem.constraints)
    for c in list(core):
        if not feasible([d for d in core if d is not c]):
            core = [d for d in core if d is not c]
    names_out = [c.name for c in core] or ["(no constraint: the expressions alone admit no value)"]
    return _infeasible(problem, names_out, start)


def _solve_job(problem: Problem, options: dict) -> Solution:
    return solve(problem, **options)


def solve_many(
    problems: Iterable[Problem],
    *,
    jobs: int = 1,
    time_limit_s: float = 10.0,
    seed: int = 0,
    workers: int = 1,
    tie_break: bool = True,
    explain: bool = True,
) -> list[Solution]:
    """Solve independent problems, results in input order; jobs > 1 uses a process pool.

    Each problem is solved with the same options as with jobs=1, so the results are the same.
    Workers are forked where the platform can (like the public code's default pool): a forked
    worker does not re-run the caller's main script, which spawned ones would, so scripts need no
    `if __name__ == "__main__"` guard. Loom holds no solver threads at that moment (CP-SAT joins its
    workers before returning). Elsewhere workers are spawned."""
    problems = list(problems)
    options = dict(
        time_limit_s=time_limit_s, seed=seed, workers=workers, tie_break=tie_break, explain=explain
    )
    if jobs <= 1 or len(problems) <= 1:
        return [solve(p, **options) for p in problems]
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(max_workers=min(jobs, len(problems)), mp_context=context) as pool:
        return list(pool.map(_solve_job, problems, itertools.repeat(options)))


def solve_many_within(
    problems: Iterable[Problem],
    *,
    total_time_limit_s: float,
    jobs: int = 1,
    time_limit_s: float = 10.0,
    seed: int = 0,
    workers: int = 1,
    tie_break: bool = True,
    explain: bool = True,
) -> list[tuple[Solution | SolverError | None, float]]:
    """`solve_many` under a total budget: problems start in input order while the budget lasts, each
    with min(time_limit_s, budget left) seconds; once it is spent no problem starts. Returns, per
    problem in input order, (its Solution, or the SolverError it raised, or None if it never started;
    the time limit it was given)."""
    problems = list(problems)
    deadline = time.perf_counter() + total_time_limit_s
    results: list[tuple[Solution | SolverError | None, float]] = [(None, 0.0)] * len(problems)
    options = dict(seed=seed, workers=workers, tie_break=tie_break, explain=explain)

    def budget() -> float:
        return min(time_limit_s, deadline - time.perf_counter())

    if jobs <= 1 or len(problems) <= 1:
        for i, problem in enumerate(problems):
            limit = budget()
            if limit <= 0:
                break
            try:
                results[i] = (solve(problem, time_limit_s=limit, **options), limit)
            except SolverError as err:
                results[i] = (err, limit)
        return results
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(max_workers=min(jobs, len(problems)), mp_context=context) as pool:
        pending: dict = {}
        queue = iter(range(len(problems)))

        def start() -> bool:
            limit = budget()
            i = next(queue, None) if limit > 0 else None
            if i is None:
                return False
            pending[pool.submit(_solve_job, problems[i], {**options, "time_limit_s": limit})] = (i, limit)
            return True

        while len(pending) < jobs and start():
            pass
        while pending:
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            for future in done:
                i, limit = pending.pop(future)
                try:
                    results[i] = (future.result(), limit)
                except SolverError as err:
                    results[i] = (err, limit)
            while len(pending) < jobs and start():
                pass
    return results
