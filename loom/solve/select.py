"""Stage 6a: solve every candidate, rank the feasible ones, and explain the choice.

Three ways to decide, all ending in the same ranked list:
- the solver (one CP-SAT problem per candidate);
- `--block-sizes`: the given block sizes for every candidate, the pipeline knobs enumerated (they
  are few), the latency evaluated exactly — no solver;
- `--schedule`: one candidate, its block sizes and knobs, as written in the file.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from loom.arch import Arch
from loom.model import expr as E
from loom.model.constraints import CandidateModel
from loom.schedule import Schedule, ScheduleError
from loom.solve.cpsat import Solution, SolverError, solve, solve_many

CATEGORIES = ("dram", "noc", "compute", "fixed")


@dataclass
class Ranked:
    model: CandidateModel
    values: dict[str, int]  # block sizes and knobs
    cycles: int
    proven_optimal: bool
    gap: float | None

    @property
    def name(self) -> str:
        return self.model.candidate.name

    def breakdown(self) -> dict[str, int]:
        """Work per category (cycles, not overlapped): what the time is spent on."""
        return {cat: sum(E.evaluate(t, self.values) for t in terms)
                for cat, terms in self.model.latency.categories.items()}

    def dominant(self) -> tuple[str, float]:
        work = self.breakdown()
        total = sum(work.values()) or 1
        top = max(CATEGORIES, key=lambda c: work.get(c, 0))
        return top, work.get(top, 0) / total


@dataclass
class Rejected:
    name: str
    reason: str


def solve_candidates(models: list[CandidateModel], *, jobs: int, time_limit_s: float, seed: int
                     ) -> tuple[list[Ranked], list[Rejected]]:
    options = dict(time_limit_s=time_limit_s, seed=seed, explain=True, tie_break=False)
    try:
        solutions: list[Solution | SolverError] = solve_many([m.problem for m in models], jobs=jobs, **options)
    except SolverError:  # one model cannot be solved: solve them one by one to know which
        solutions = []
        for model in models:
            try:
                solutions.append(solve(model.problem, **options))
            except SolverError as err:
                solutions.append(err)
    ranked, rejected = [], []
    for model, solution in zip(models, solutions):
        if isinstance(solution, SolverError):
            rejected.append(Rejected(model.candidate.name, f"not solvable: {solution.message}"))
        elif solution.feasible:
            ranked.append(Ranked(model, dict(solution.values), solution.objective, solution.proven_optimal,
                                 solution.gap))
        else:
            reason = "; ".join(solution.infeasible_constraints) or solution.message or solution.status
            rejected.append(Rejected(model.candidate.name, reason))
    ranked.sort(key=lambda r: (r.cycles, r.name))
    return ranked, rejected


def evaluate_fixed(models: list[CandidateModel], block_sizes: dict[str, int]) -> tuple[list[Ranked], list[Rejected]]:
    """Every candidate at the given block sizes, with its best pipeline knobs (no solver)."""
    ranked, rejected = [], []
    for model in models:
        problem = model.problem
        bad = [f"{k}={v} is not in its domain {problem.domains[k]}" for k, v in block_sizes.items()
               if k in problem.domains and v not in problem.domains[k]]
        missing = [k for k in problem.domains if k not in block_sizes]
        if missing:
            raise ScheduleError(f"--block-sizes must give {', '.join(problem.domains)}; missing {', '.join(missing)}")
        if bad:
            rejected.append(Rejected(model.candidate.name, "; ".join(bad)))
            continue
        best: Ranked | None = None
        failed = ""
        for bits in itertools.product((0, 1), repeat=len(problem.knobs)):
            values = {**block_sizes, **dict(zip(problem.knobs, bits))}
            broken = [c.name for c in problem.constraints if not c.holds(values)]
            if broken:
                failed = failed or "; ".join(broken)
                continue
            cycles = E.evaluate(problem.objective, values)
            if best is None or cycles < best.cycles:
                best = Ranked(model, values, cycles, True, 0.0)
        if best is None:
            rejected.append(Rejected(model.candidate.name, failed))
        else:
            ranked.append(best)
    ranked.sort(key=lambda r: (r.cycles, r.name))
    return ranked, rejected


def replay(models: list[CandidateModel], schedule: Schedule) -> tuple[list[Ranked], list[Rejected]]:
    """The one candidate a schedule file names, at its block sizes and knobs."""
    by_name = {m.candidate.name: m for m in models}
    model = by_name.get(schedule.candidate)
    if model is None:
        close = [n for n in by_name if n.split(".")[0] == schedule.candidate.split(".")[0]][:5]
        raise ScheduleError(f"candidate '{schedule.candidate}' is not one of this kernel's candidates"
                            + (f"; similar: {', '.join(close)}" if close else ""))
    problem = model.problem
    unknown = sorted(set(schedule.block_sizes) - set(problem.domains))
    if unknown:
        raise ScheduleError(f"unknown block-size label(s) {', '.join(unknown)}; the kernel has "
                            f"{', '.join(problem.domains) or 'none'}")
    values = {**schedule.block_sizes, **{k: int(schedule.knobs.get(k, 0)) for k in problem.knobs}}
    missing = [k for k in problem.domains if k not in values]
    if missing:
        raise ScheduleError(f"the schedule gives no value for {', '.join(missing)}")
    outside = [f"{k}={values[k]} (allowed: {problem.domains[k]})" for k in problem.domains
               if values[k] not in problem.domains[k]]
    if outside:
        raise ScheduleError("block size(s) outside their domain: " + "; ".join(outside))
    broken = [c.name for c in problem.constraints if not c.holds(values)]
    if broken:
        raise ScheduleError(f"the schedule breaks: {'; '.join(broken)}")
    return [Ranked(model, values, E.evaluate(problem.objective, values), True, 0.0)], []


def parse_block_sizes(text: str) -> dict[str, int]:
    sizes = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep or not value.strip().isdigit():
            raise ScheduleError(f"--block-sizes: `{item}` is not LABEL=INTEGER")
        sizes[name.strip()] = int(value)
    return sizes


def to_schedule(best: Ranked, arch: Arch, kernel: str, shape: dict[str, int], source: str) -> Schedule:
    candidate = best.model.candidate
    dominant, share = best.dominant()
    block_sizes = {k: v for k, v in best.values.items() if k in best.model.problem.domains}
    knobs = {k: v for k, v in best.values.items() if k in best.model.problem.knobs}
    return Schedule(
        kernel=kernel, arch=arch.name, shape=dict(shape), candidate=candidate.name,
        view=[list(levels) for levels in candidate.view.levels], order=list(candidate.order),
        spatial={a.axis: [list(lv) for lv in a.levels] for a in candidate.axes},
        transfers={t.tensor: {"mode": t.mode, "group": list(t.group)} for t in candidate.transfers
                   if t.direction == "load"},
        block_sizes=block_sizes, knobs=knobs, predicted_cycles=best.cycles,
        predicted_us=round(best.cycles / (arch.clock_ghz * 1000), 3), dominant=dominant,
        dominant_share=round(share, 4), source=source,
    )
