"""Stage 6b: solve candidates in the order of their lower bounds and stop when none can enter the top-k.

Every candidate gets a lower bound on its optimum (`loom.solve.bound`: cheap, and the optimum
itself when its whole decision space fits the grid). Candidates are solved in (bound, name) order.
Ranking is by (cycles, name), so once k candidates are ranked, a candidate whose (bound, name)
comes after the k-th best (cycles, name), the incumbent, cannot enter the top-k: it is "pruned by
bound", and so is every candidate after it in that order. Nothing that could be in the top-k is
ever skipped, so the top-k is the one solving every candidate gives.

The incumbent as a cutoff. A candidate whose bound is exact and before the incumbent will enter the
top-k; one whose bound is only an interval bound may not. The latter is solved first under the
constraint `objective <= incumbent` (< incumbent when the name loses the tie): if CP-SAT finds
nothing it is "pruned by cutoff". If it finds something, it is solved again without the cutoff, so
that its block sizes and knobs are exactly those of solving every candidate: the solver's choice
among equally fast assignments depends on the model it is given (the cutoff is a constraint).

Parallelism. Candidates are solved in waves: the next ones in bound order that the top-k still
needs (k minus those ranked, at least one). With `jobs` > 1 a wave of at least `POOL_MIN` is solved
by a process pool (made once); smaller ones are not worth starting it. A wave's results are taken
in bound order, whatever finished first, and each solve is the same as with one job, so neither the
top-k nor the counts depend on `jobs`. The bounds themselves are computed in forked workers
(`lower_bounds`) when there are many candidates: each worker builds and bounds its share of the
models, and this process builds only those it solves.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from loom.model.models import CandidateModels, cycle_collection_paused
from loom.model.problem import Constraint, Problem
from loom.solve.bound import Bound, Grids, lower_bound
from loom.solve.cpsat import Solution, SolverError, solve
from loom.solve.select import Ranked, Rejected, ranked_or_rejected

__all__ = ["SolveCounts", "solve_in_bound_order"]


@dataclass
class SolveCounts:
    """What stage 6 did with the candidates, for the report."""

    solved: int = 0  # candidates given to CP-SAT
    pruned_by_bound: int = 0
    pruned_by_cutoff: int = 0
    infeasible: int = 0
    not_solved: int = 0
    exact_bounds: int = 0  # candidates whose bound is their optimum
    bound_seconds: float = 0.0  # bounding every candidate, the models built for it included
    models_built_bounding: float = 0.0  # of which building models in this process (none with bound workers)
    exhaustive: bool = False
    bounds: dict[str, Bound] = field(default_factory=dict, repr=False)


def _key(r: Ranked) -> tuple[int, str]:
    return r.cycles, r.name


def _cutoff(problem: Problem, incumbent: tuple[int, str]) -> Problem:
    """The problem with `objective <= incumbent` (one less when this candidate's name loses the tie)."""
    cycles, name = incumbent
    limit = cycles if problem.name < name else cycles - 1
    cut = Constraint(f"objective <= {limit} (the incumbent)", problem.objective, limit)
    return Problem(problem.objective, [*problem.constraints, cut], problem.domains, problem.knobs, problem.name,
                   problem.prefer_on)


def _solve(job: tuple[Problem, dict]) -> Solution | SolverError:
    problem, options = job
    try:
        return solve(problem, **options)
    except SolverError as err:
        return err


class _Runner:
    """Solves a list of problems, in one process or in a pool made once, on first need. Starting a
    pool costs about as much as `POOL_MIN` solves (measured: about 100 ms against 10-15 ms a solve),
    so smaller waves run here."""

    POOL_MIN = 8

    def __init__(self, jobs: int):
        self.jobs, self.pool = jobs, None

    def map(self, jobs: list[tuple[Problem, dict]]) -> list[Solution | SolverError]:
        if self.jobs <= 1 or len(jobs) < max(2, self.POOL_MIN):
            return [_solve(j) for j in jobs]
        if self.pool is None:
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
            self.pool = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context(method))
        return list(self.pool.map(_solve, jobs))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


_BOUNDING: CandidateModels | None = None  # what the forked bound workers read (`lower_bounds`)
_GRIDS: Grids | None = None
BOUND_POOL_MIN = 32  # fewer candidates are bounded here: a pool costs about 100 ms to start


def _bound_in_worker(i: int) -> Bound | None:
    """Candidate i's bound, built and bounded in a worker; None if that raised (this process then
    builds it again and raises the error itself: an exception need not survive pickling)."""
    try:
        return lower_bound(_BOUNDING[i].problem, grids=_GRIDS)  # type: ignore[index]
    except Exception:  # noqa: BLE001 - re-raised by the parent, which builds the same model
        return None


def lower_bounds(models: CandidateModels, jobs: int) -> list[Bound]:
    """Every candidate's lower bound, in order. With `jobs` > 1, at least `BOUND_POOL_MIN` candidates and
    `fork` available, forked processes build and bound the models (they inherit `models`; only the bounds
    come back), so this process builds only the models it goes on to solve."""
    global _BOUNDING, _GRIDS
    if jobs <= 1 or len(models) < BOUND_POOL_MIN or "fork" not in multiprocessing.get_all_start_methods():
        grids = Grids()
        return [lower_bound(m.problem, grids=grids) for m in models.unkept()]
    _BOUNDING, _GRIDS = models, Grids()  # each worker fills its own copy of the grids
    try:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            got = list(pool.map(_bound_in_worker, range(len(models)), chunksize=max(1, len(models) // (4 * jobs))))
    finally:
        _BOUNDING = _GRIDS = None
    return [b if b is not None else lower_bound(models[i].problem) for i, b in enumerate(got)]


def solve_in_bound_order(models: CandidateModels, *, top_k: int, jobs: int, time_limit_s: float,
                         seed: int) -> tuple[list[Ranked], list[Rejected], SolveCounts]:
    """The top-k of `models` (at least), solving as few as the bounds allow; see the module docstring.
    A model is read only to be solved (`loom.model.models` builds the others in the bound workers)."""
    import time

    counts = SolveCounts()
    start = time.perf_counter()
    names, built = models.names, models.seconds
    with cycle_collection_paused():
        bounds = dict(zip(names, lower_bounds(models, jobs)))
    counts.bound_seconds = time.perf_counter() - start
    counts.models_built_bounding = models.seconds - built
    counts.bounds = bounds
    counts.exact_bounds = sum(b.exact and b.value is not None for b in bounds.values())
    ranked: list[Ranked] = []
    rejected: list[Rejected] = []
    todo = []
    for i, name in enumerate(names):
        b = bounds[name]
        if b.infeasible:  # no assignment satisfies the constraints: proven without the solver
            rejected.append(Rejected(name, b.culprit or "no assignment satisfies every constraint"))
        else:  # no bound (the solver will say why) sorts first
            todo.append(i)
    todo.sort(key=lambda i: (-1 if bounds[names[i]].value is None else bounds[names[i]].value, names[i]))
    options = dict(time_limit_s=time_limit_s, seed=seed, explain=True, tie_break=False)
    runner = _Runner(jobs)
    try:
        while todo:
            incumbent = _key(ranked[top_k - 1]) if len(ranked) >= top_k else None
            b = bounds[names[todo[0]]]
            if incumbent is not None and b.value is not None and (b.value, names[todo[0]]) > incumbent:
                for i in todo:  # sorted by bound: none of the rest can enter the top-k either
                    rejected.append(Rejected(names[i], f"pruned by bound: lower bound "
                                             f"{bounds[names[i]].value:,} >= incumbent {incumbent[0]:,}",
                                             "pruned"))
                break
            size = max(1, top_k - len(ranked))  # the wave does not depend on jobs: nor do the counts
            wave, todo = [models[i] for i in todo[:size]], todo[size:]
            cut = [incumbent is not None and not bounds[m.candidate.name].exact for m in wave]
            problems = [_cutoff(m.problem, incumbent) if c else m.problem for m, c in zip(wave, cut)]
            first = runner.map([(p, {**options, "explain": options["explain"] and not c})
                                for p, c in zip(problems, cut)])
            again = [i for i, (c, s) in enumerate(zip(cut, first)) if c and isinstance(s, Solution) and s.feasible]
            for i, s in zip(again, runner.map([(wave[i].problem, options) for i in again])):
                first[i] = s
            counts.solved += len(wave)
            for m, c, s in zip(wave, cut, first):
                if c and isinstance(s, Solution) and s.status == "INFEASIBLE":
                    counts.pruned_by_cutoff += 1
                    rejected.append(Rejected(m.candidate.name, f"pruned by cutoff: no schedule under the incumbent "
                                             f"{incumbent[0]:,}", "pruned"))
                    continue
                got = ranked_or_rejected(m, s, time_limit_s, time_limit_s)
                (ranked if isinstance(got, Ranked) else rejected).append(got)
            ranked.sort(key=_key)
    finally:
        runner.close()
    counts.pruned_by_bound = sum(r.reason.startswith("pruned by bound") for r in rejected)
    counts.infeasible = sum(r.kind == "infeasible" for r in rejected)
    counts.not_solved = sum(r.kind == "not solved" for r in rejected)
    return ranked, rejected, counts
