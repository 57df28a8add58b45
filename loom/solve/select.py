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
from loom.model.models import CandidateModels
from loom.schedule import NoScheduleError, Schedule, ScheduleError
from loom.solve.cpsat import Solution, SolverError, solve, solve_many, solve_many_within

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
    kind: str = "infeasible"  # infeasible | not solved (a time limit ended it) | pruned (it cannot enter the top-k)


TOTAL_LIMIT_REACHED = "not solved: total time limit reached"


def solve_candidates(models: list[CandidateModel], *, jobs: int, time_limit_s: float, seed: int,
                     total_time_limit_s: float | None = None) -> tuple[list[Ranked], list[Rejected]]:
    """Solve every candidate (each within `time_limit_s`). With `total_time_limit_s`, candidates start
    in order while that budget lasts; those never started are rejected as "not solved: total time
    limit reached", never dropped."""
    options = dict(time_limit_s=time_limit_s, seed=seed, explain=True, tie_break=False)
    problems = [m.problem for m in models]
    limits = [time_limit_s] * len(models)
    solutions: list[Solution | SolverError | None]
    if total_time_limit_s is not None:
        within = solve_many_within(problems, total_time_limit_s=total_time_limit_s, jobs=jobs, **options)
        solutions, limits = [s for s, _ in within], [t for _, t in within]
    else:
        try:
            solutions = list(solve_many(problems, jobs=jobs, **options))
        except SolverError:  # one model cannot be solved: solve them one by one to know which
            solutions = []
            for model in models:
                try:
                    solutions.append(solve(model.problem, **options))
                except SolverError as err:
                    solutions.append(err)
    ranked, rejected = [], []
    for model, solution, limit in zip(models, solutions, limits):
        got = ranked_or_rejected(model, solution, limit, time_limit_s)
        (ranked if isinstance(got, Ranked) else rejected).append(got)
    ranked.sort(key=lambda r: (r.cycles, r.name))
    return ranked, rejected


def ranked_or_rejected(model: CandidateModel, solution: Solution | SolverError | None, limit: float,
                       time_limit_s: float) -> Ranked | Rejected:
    """One candidate's outcome: ranked with its solution, or rejected with why (`limit`: the time it was
    given, less than `time_limit_s` when the total time limit cut it)."""
    name = model.candidate.name
    if solution is None:
        return Rejected(name, TOTAL_LIMIT_REACHED, "not solved")
    if isinstance(solution, SolverError):
        return Rejected(name, f"not solvable: {solution.message}")
    if solution.feasible:
        return Ranked(model, dict(solution.values), solution.objective, solution.proven_optimal, solution.gap)
    if solution.status == "UNKNOWN":  # the time limit ended the search before any solution
        reason = (TOTAL_LIMIT_REACHED if limit < time_limit_s else
                  f"not solved: time limit per candidate ({time_limit_s:g} s) reached without a solution")
        return Rejected(name, reason, "not solved")
    return Rejected(name, "; ".join(solution.infeasible_constraints) or solution.message or solution.status)


def no_schedule_error(models: list[CandidateModel], rejected: list[Rejected], arch: Arch, *,
                      time_limit_s: float | None = None, total_time_limit_s: float | None = None,
                      block_sizes: dict[str, int] | None = None, whole: list[tuple[str, int]] = ()) -> NoScheduleError:
    """Why no candidate gave a schedule, in one sentence with what was expected and what was found; `whole`:
    (line, positions) of the blocks that span a leading dimension whole (named where L1 is short)."""
    count = len(models)
    unsolved = [r for r in rejected if r.kind == "not solved"]
    if count and len(unsolved) == len(rejected):
        if any(r.reason == TOTAL_LIMIT_REACHED for r in unsolved):
            started = count - sum(1 for r in unsolved if r.reason == TOTAL_LIMIT_REACHED)
            return NoScheduleError(
                f"the total time limit ({total_time_limit_s:g} s) was reached: expected a solution for at least "
                f"one of the {count} candidates, found none ({started} started, {count - started} not solved: "
                "total time limit reached); raise --total-time-limit", field="--total-time-limit")
        return NoScheduleError(
            f"the time limit per candidate ({time_limit_s:g} s) was reached by every candidate: expected a "
            f"solution for at least one of the {count} candidates, found none; raise --time-limit",
            field="--time-limit")
    l1 = arch.l1.usable_bytes
    smallest = []
    for model in models:  # the footprint grows with block sizes and knobs: its minimum is at the smallest
        problem = model.problem
        sizes = {k: (block_sizes or {}).get(k, d[0] if d else 0) for k, d in problem.domains.items()}
        smallest.append((E.evaluate(model.footprint, {**sizes, **{k: 0 for k in problem.knobs}}), sizes))
    if smallest and min(need for need, _ in smallest) > l1:
        need, sizes = min(smallest, key=lambda p: p[0])
        given = "the given --block-sizes" if block_sizes else "the smallest blocks"
        shown = ", ".join(f"{k}={v}" for k, v in sizes.items()) or "all fixed in the source"
        return NoScheduleError(
            f"no candidate is feasible on {arch.name}: L1 footprint <= {l1} bytes (usable L1 of {arch.name}) "
            f"fails for all {count} candidates; even {given} ({shown}, no double buffering) need {need} bytes "
            f"of L1 per core: expected l1.usable_bytes >= {need}, found {l1}"
            + (f"; the blocks at {', '.join(f'{loc} ({n} positions)' for loc, n in whole[:3])} hold every position "
               "of a leading dimension at once (`x[tile, :, tile_t, :]`): index one position per tile (a grid over "
               "that dimension)" if whole else ""))
    reasons = sorted({r.reason for r in rejected})
    return NoScheduleError(f"no candidate is feasible ({len(rejected)} of {count} rejected); "
                           + " | ".join(reasons[:3]))


def evaluate_fixed(models: list[CandidateModel], block_sizes: dict[str, int]) -> tuple[list[Ranked], list[Rejected]]:
    """Every candidate at the given block sizes, with its best pipeline knobs (no solver)."""
    ranked, rejected = [], []
    domains = models[0].problem.domains if models else {}  # the block sizes are the kernel's: one set for all
    unknown = sorted(set(block_sizes) - set(domains))
    if unknown:
        raise ScheduleError(f"unknown block-size label(s) {', '.join(unknown)}; expected some of "
                            f"{', '.join(domains) or 'none (every block size is fixed in the source)'}",
                            field="--block-sizes")
    missing = [k for k in domains if k not in block_sizes]
    if missing:
        raise ScheduleError(f"expected a value for every block size ({', '.join(domains)}), found none for "
                            f"{', '.join(missing)}", field="--block-sizes")
    for k, v in block_sizes.items():
        if v not in domains[k]:
            raise ScheduleError(f"{k}: expected one of {_domain_text(domains[k])}, found {v}", field="--block-sizes")
    for model in models:
        problem = model.problem
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


def _domain_text(domain: list[int]) -> str:
    shown = ", ".join(map(str, domain if len(domain) <= 12 else domain[:6] + ["…"] + domain[-3:]))
    return f"[{shown}]" if domain else "[] (no legal value)"


def _broken(problem, values: dict[str, int]) -> list[str]:
    """Each violated constraint with its two sides evaluated."""
    out = []
    for c in problem.constraints:
        if not c.holds(values):
            lhs, rhs = E.evaluate(c.lhs, values), E.evaluate(c.rhs, values)
            out.append(f"{c.name}: expected {c.kind} {rhs}, found {lhs}")
    return out


def _check_candidate_name(models: list[CandidateModel], schedule: Schedule, arch: Arch | None) -> None:
    """Say why a schedule's candidate name is not a candidate: above all, which transfer is illegal."""
    name = schedule.candidate
    prefix, _, rest = name.partition(".")
    order, _, transfers = rest.partition(".")
    same = [m.candidate for m in models if m.candidate.name.split(".")[:2] == [prefix, order]]
    for part in filter(None, transfers.split(".")):
        tensor, _, mode = part.partition(":")
        legal = sorted({t.mode for c in same for t in c.transfers if t.tensor == tensor and t.direction == "load"})
        if same and legal and mode not in legal:
            why = ""
            if arch is not None and mode not in ("unicast", *arch.noc.multicast):
                why = (f"; {arch.name} declares no '{mode}' multicast (noc.multicast = "
                       f"{', '.join(arch.noc.multicast) or 'none'})")
            elif mode not in ("unicast",):
                why = (f"; with view {prefix} and axis order {order} the cores that read the same blocks of "
                       f"{tensor} do not form a {mode}")
            raise schedule.error(f"transfers.{tensor}.mode",
                                 f"'{mode}' is not a legal transfer for {tensor} in candidate '{name}': expected one "
                                 f"of {', '.join(legal)}, found '{mode}'{why}")
    close = [m.candidate.name for m in models if m.candidate.name.split(".")[0] == prefix][:5]
    where = f" on {arch.name}" if arch is not None else ""
    raise schedule.error("candidate", f"expected one of this kernel's {len(models)} candidates{where}, found "
                         f"'{name}'" + (f"; similar: {', '.join(close)}" if close else ""))


def _check_agrees(model: CandidateModel, schedule: Schedule) -> None:
    """The optional descriptive fields of a schedule file must say what its candidate says."""
    c = model.candidate
    loads = {t.tensor: t for t in c.transfers if t.direction == "load"}
    for tensor, given in schedule.transfers.items():
        if tensor not in loads:
            raise schedule.error(f"transfers.{tensor}", f"expected a DRAM load of candidate '{c.name}' "
                                 f"({', '.join(loads) or 'none'}), found '{tensor}'")
        if not isinstance(given, dict):
            raise schedule.error(f"transfers.{tensor}", f"expected {{\"mode\": …, \"group\": […]}}, found {given!r}")
        want = {"mode": loads[tensor].mode, "group": list(loads[tensor].group)}
        for key in ("mode", "group"):
            if key in given and given[key] != want[key]:
                raise schedule.error(f"transfers.{tensor}.{key}",
                                     f"expected {want[key]!r} (the multicast region of candidate '{c.name}'), "
                                     f"found {given[key]!r}")
    checks = {"view": [list(levels) for levels in c.view.levels], "order": list(c.order),
              "spatial": {a.axis: [list(lv) for lv in a.levels] for a in c.axes},
              "split": c.split.to_json() if c.split else None}
    for field, want in checks.items():
        given = getattr(schedule, field)
        if given and given != want:
            raise schedule.error(field, f"expected {want} (as candidate '{c.name}' says), found {given}")


def replay(models: CandidateModels, schedule: Schedule, *, kernel: str | None = None,
           arch: Arch | None = None, build=None) -> tuple[list[Ranked], list[Rejected]]:
    """The candidate a schedule names, at its block sizes and knobs. A baseline's schedule may
    describe a candidate Loom does not retain: `build(schedule)` makes it from the schedule's view,
    order, spatial levels and transfers (checked for legality)."""
    if kernel is not None and schedule.kernel != kernel:
        raise schedule.error("kernel", f"expected '{kernel}' (the kernel being compiled), found '{schedule.kernel}'")
    if arch is not None and schedule.arch != arch.name:
        raise schedule.error("arch", f"expected '{arch.name}' (the architecture being compiled for), "
                                     f"found '{schedule.arch}'")
    model = models.named(schedule.candidate)  # the only model built (`loom.model.models`)
    if model is None and build is not None and schedule.source.startswith("baseline"):
        model = build(schedule)
    if model is None:
        _check_candidate_name(models, schedule, arch)
    _check_agrees(model, schedule)
    problem = model.problem
    unknown = sorted(set(schedule.block_sizes) - set(problem.domains))
    if unknown:
        raise schedule.error(f"block_sizes.{unknown[0]}", f"unknown block-size label(s) {', '.join(unknown)}; "
                             f"expected some of {', '.join(problem.domains) or 'none'}")
    unknown = sorted(set(schedule.knobs) - set(problem.knobs))
    if unknown:
        raise schedule.error(f"knobs.{unknown[0]}", f"unknown pipeline knob(s) {', '.join(unknown)}; expected some "
                             f"of {', '.join(problem.knobs) or 'none'}")
    values = {**schedule.block_sizes, **{k: int(schedule.knobs.get(k, 0)) for k in problem.knobs}}
    missing = [k for k in problem.domains if k not in values]
    if missing:
        raise schedule.error(f"block_sizes.{missing[0]}", f"expected a value for {', '.join(missing)}, found none")
    for k in problem.domains:
        if values[k] not in problem.domains[k]:
            raise schedule.error(f"block_sizes.{k}", f"block size outside its domain: expected one of "
                                 f"{_domain_text(problem.domains[k])}, found {values[k]}")
    broken = _broken(problem, values)
    if broken:
        raise schedule.error("block_sizes", f"the schedule breaks: {'; '.join(broken)}")
    return [Ranked(model, values, E.evaluate(problem.objective, values), True, 0.0)], []


def parse_block_sizes(text: str) -> dict[str, int]:
    sizes = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip().isdigit() or int(value) <= 0:
            raise ScheduleError(f"expected LABEL=POSITIVE_INTEGER, found `{item}`", field="--block-sizes")
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
        split=candidate.split.to_json() if candidate.split else None,
        block_sizes=block_sizes, knobs=knobs, predicted_cycles=best.cycles,
        predicted_us=round(best.cycles / (arch.clock_ghz * 1000), 3), dominant=dominant,
        dominant_share=round(share, 4), source=source,
    )
