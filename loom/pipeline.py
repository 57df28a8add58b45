"""The whole pipeline, one stage a line. Stages beyond buffer concretization land in later issues."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from xdsl.dialects.builtin import ModuleOp

from loom.arch import Arch, load_arch
from loom.errors import InternalError, LoomError
from loom.ir.text import context, to_text

if TYPE_CHECKING:  # the stages below are imported where they run, so that `loom.lower` stays light
    from loom.mapping.candidates import CandidateSet
    from loom.schedule import Schedule
    from loom.solve.order import SolveCounts
    from loom.solve.select import Ranked, Rejected

T = TypeVar("T")
STAGES = ("frontend", "dataflow", "concrete")
DUMP_NAMES = {"frontend": "00_frontend", "dataflow": "01_dataflow", "concrete": "02_concrete"}


@dataclass
class Lowering:
    """What `loom.lower` returns: the IR after each stage, by stage name."""

    arch: Arch
    stages: dict[str, ModuleOp] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # per stage

    @property
    def module(self) -> ModuleOp:
        return list(self.stages.values())[-1]

    def dump(self, directory: str | Path) -> list[Path]:
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for stage, module in self.stages.items():
            path = out / f"{DUMP_NAMES[stage]}.mlir"
            path.write_text(to_text(module))
            written.append(path)
        return written


def run_stage(stage: str, fn: Callable[..., T], *args) -> T:
    """Run one stage; user errors pass through, anything else is an internal error naming the stage."""
    try:
        return fn(*args)
    except LoomError:
        raise
    except Exception as err:  # noqa: BLE001 - reported as a Loom bug with its stage
        raise InternalError(stage, err) from err


def _apply(pass_type) -> Callable[[ModuleOp], ModuleOp]:
    def run(module: ModuleOp) -> ModuleOp:
        result = module.clone()  # every stage's IR stays available for dumps
        pass_type().apply(context(), result)
        return result

    return run


def _frontend(kernel: object, args: tuple, target: Arch) -> ModuleOp:
    from loom.frontend.conversions import fold_conversions
    from loom.frontend.helion import trace_kernel
    from loom.frontend.lower import check_dram_capacity, lower_kernel
    from loom.frontend.reductions import annotate_reductions
    from loom.ops import check_module

    traced = trace_kernel(kernel, args)
    check_dram_capacity(traced, target)  # the tensors must fit the chip's DRAM
    module = lower_kernel(traced, target.tiling.block_alignment)
    annotate_reductions(module)  # which device loops may be split across cores, and their combine
    fold_conversions(module)  # a format conversion is the unpacker's or packer's work, not an op
    check_module(module, target, lambda loc: traced.line_location(int(loc.rpartition(":")[2])))  # op table
    return module


def lower(kernel: object, args: tuple, arch: str | Arch = "wormhole_n150", stage: str = "concrete") -> Lowering:
    """Lower a Helion kernel bound to example `args` up to `stage` (frontend, dataflow or concrete)."""
    from loom.passes.concretize_buffers import ConcretizeBuffers
    from loom.passes.reify_dataflow import ReifyDataflow

    if stage not in STAGES:
        raise LoomError(f"unknown stage '{stage}'; choose one of {', '.join(STAGES)}")
    target = arch if isinstance(arch, Arch) else load_arch(arch)
    result = Lowering(target)
    steps = [
        ("frontend", lambda _: _frontend(kernel, args, target)),  # Helion Device IR -> symbolic MLIR
        ("dataflow", _apply(ReifyDataflow)),  # tile values -> virtual buffers with reserve/commit/acquire/release
        ("concrete", _apply(ConcretizeBuffers)),  # merge handoffs, share storage by liveness, semaphores
    ]
    module = None
    for name, step in steps:
        start = time.perf_counter()
        module = run_stage(name, step, module)
        result.seconds[name] = time.perf_counter() - start
        result.stages[name] = module
        if name == stage:
            break
    return result


@dataclass
class Compilation:
    """What `loom.compile` returns: the lowering, every candidate's fate, and the chosen schedule."""

    lowering: Lowering
    candidates: CandidateSet  # every candidate of stage 4, with the counts of the pruned space
    ranked: list[Ranked]  # the feasible candidates, best first (the top-k asked for)
    rejected: list[Rejected]  # the others, each with why
    schedule: Schedule  # the chosen one, as a Schedule
    selected: ModuleOp
    seconds: dict[str, float] = field(default_factory=dict)
    counts: SolveCounts | None = None  # how stage 6 dealt with the candidates (None: not by the solver)
    placed_on: Arch | None = None  # compiled for a virtual grid (`lowering.arch`): the real one it runs on
    kernel: object = None  # the Helion kernel compiled: `loom run` runs its host code after the device loop

    def dump(self, directory: str | Path) -> list[Path]:
        from loom.mapping.candidate_ir import candidate_module

        out = Path(directory)
        written = self.lowering.dump(out)
        concrete = self.lowering.stages["concrete"]
        (out / "03_candidates").mkdir(parents=True, exist_ok=True)
        for candidate in self.candidates.candidates:
            path = out / "03_candidates" / f"{candidate.name}.mlir"
            path.write_text(to_text(candidate_module(concrete, candidate)))
            written.append(path)
        for name, text in (("04_selected.mlir", to_text(self.selected)), ("schedule.json", self.schedule.to_json())):
            (out / name).write_text(text)
            written.append(out / name)
        return written


def compile(kernel: object, args: tuple, arch: str | Arch = "wormhole_n150", *, shape: dict | None = None,
            top_k: int = 1, jobs: int | None = None, time_limit_s: float = 10.0, seed: int = 0,
            block_sizes: dict[str, int] | None = None, schedule: Schedule | None = None,
            total_time_limit_s: float | None = None, portable: bool = False,
            exhaustive: bool = False) -> Compilation:
    """Lower, enumerate candidates, model and solve them, select, materialize (stages 1-6).

    Candidates are solved in the order of a lower bound on their cycles, and those that cannot enter
    the top-k are not solved (`loom.solve.order`); `exhaustive=True`, `top_k=0` (rank them all) or a
    `total_time_limit_s` solve every candidate. Either way the top-k is the same. `jobs` processes
    solve in parallel (default: the machine's cores, at most 8). `time_limit_s` bounds each
    candidate's solve; `total_time_limit_s` (default: none) bounds all of them together: once it is
    spent no further candidate starts, and those left are reported as "not solved: total time limit
    reached". `portable=True` keeps to schedules every backend can express (no reduction splits, no
    panels kept in L1): the TT-Lang backend's."""
    from loom.backend.placement import virtual_arch
    from loom.errors import OptionError

    for option, value in (("--time-limit", time_limit_s), ("--total-time-limit", total_time_limit_s)):
        if value is not None and not value > 0:
            raise OptionError(f"{option}: expected a positive number of seconds, found {value:g}")

    target = arch if isinstance(arch, Arch) else load_arch(arch)
    placed_on = None
    if schedule is not None and schedule.arch.partition("@")[0] == target.name and "@" in schedule.arch:
        # a schedule for a virtual grid placed row-major on this one (Loom's or a baseline's)
        target, placed_on = virtual_arch(target, tuple(int(n) for n in schedule.arch.partition("@")[2].split("x"))), \
            target
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    lowering = run_stage("lower (stages 1-3)", lower, kernel, args, target)  # symbolic IR, buffers, storage
    frontend = lowering.seconds.get("frontend", 0.0)  # Helion's trace: shown apart from Loom's own stages
    seconds.update({"frontend (stage 1)": frontend, "lower (stages 2-3)": time.perf_counter() - start - frontend})
    on_grid = dict(kernel=kernel, shape=shape, top_k=top_k, jobs=jobs, time_limit_s=time_limit_s, seed=seed,
                   block_sizes=block_sizes, schedule=schedule, total_time_limit_s=total_time_limit_s,
                   portable=portable, exhaustive=exhaustive)
    result = _compile_lowered(lowering, target, seconds, placed_on=placed_on, **on_grid)
    virtual = row_major_grid(target) if schedule is None and block_sizes is None and not portable else None
    return _row_major_if_faster(result, virtual, seconds, on_grid) if virtual is not None else result


def _row_major_if_faster(result: Compilation, virtual: Arch, seconds: dict[str, float], on_grid: dict) -> Compilation:
    """The same kernel compiled for `virtual` (placed row-major on `result`'s grid, unicast and forwarding
    only), if the model prices its best schedule below `result`'s."""
    real = result.lowering.arch
    try:
        other = _compile_lowered(replace(result.lowering, arch=virtual), virtual, seconds, placed_on=real,
                                 point_to_point=True, **on_grid)
    except LoomError:
        return result  # no point-to-point candidate there: the rectangles' choice stands
    if other.ranked[0].cycles >= result.ranked[0].cycles:
        return result
    other.schedule.notes.append(
        f"compiled for a {'x'.join(map(str, virtual.grid.dims))} virtual grid, its {virtual.num_cores} cores placed "
        f"row-major on the {'x'.join(map(str, real.grid.dims))} grid (unicast and forwarding only): "
        f"{result.ranked[0].cycles:,} modelled cycles on the grid's rectangles")
    return other


def row_major_grid(arch: Arch) -> Arch | None:
    """A virtual grid of the largest power-of-two number of cores of `arch`, where no rectangle of its grid
    holds that many (128 of Blackhole's 13 x 10), as powers of two along each dimension; else None."""
    from loom.backend.placement import virtual_arch

    if len(arch.grid.dims) != 2:
        return None
    most = 1 << (arch.num_cores.bit_length() - 1)
    x, y = (1 << (d.bit_length() - 1) for d in arch.grid.dims)
    if x * y >= most:
        return None
    return virtual_arch(arch, (most // y, y))


def _compile_lowered(lowering: Lowering, target: Arch, seconds: dict[str, float], *, kernel, shape, top_k, jobs,
                     time_limit_s, seed, block_sizes, schedule, total_time_limit_s, portable, exhaustive,
                     placed_on: Arch | None = None, point_to_point: bool = False) -> Compilation:
    """Stages 4-6 of `compile` on one grid (`target`, a virtual grid when `placed_on` is the real one)."""
    from loom.mapping.candidates import enumerate_candidates
    from loom.mapping.reduction import split_note
    from loom.model.models import CandidateModels
    from loom.passes.l1_footprint import l1_footprint, whole_leading_blocks
    from loom.solve import select
    from loom.solve.materialize import materialize

    def timed(stage: str, fn: Callable[..., T], *a) -> T:
        start = time.perf_counter()
        try:
            return run_stage(stage, fn, *a)
        finally:
            seconds[stage] = seconds.get(stage, 0.0) + time.perf_counter() - start

    concrete = lowering.stages["concrete"]
    # views x orders x transfers
    candidates = timed("candidates (stage 4)", enumerate_candidates, concrete, target, portable, point_to_point)
    if not candidates.candidates:
        raise _no_candidate_error(candidates, target)
    footprint = l1_footprint(concrete, (target.tiling.tile_rows, target.tiling.tile_cols))
    models = CandidateModels(concrete, candidates.candidates, target, footprint)  # HEG, T(x, b), constraints
    kernel_name = getattr(getattr(kernel, "fn", None), "__name__", "kernel")
    options = dict(jobs=default_jobs() if jobs is None else jobs, time_limit_s=time_limit_s, seed=seed,
                   total_time_limit_s=total_time_limit_s)
    decide, source = _decision(models, concrete, target, footprint, kernel_name, schedule, block_sizes, options,
                               top_k, exhaustive)
    ranked, rejected, counts = timed("solve (stage 6)", decide)  # CP-SAT problems in bound order, ranked
    # stage 5 runs on demand (`loom.model.models`): the models built here, and those built with the bounds
    # (in the bound workers, when there are many candidates) count with the bounds
    deciding = seconds.pop("solve (stage 6)")
    bounding = counts.bound_seconds if counts is not None else 0.0
    built = models.seconds - (counts.models_built_bounding if counts is not None else 0.0)  # not while bounding
    seconds["model (stage 5)"] = built
    if bounding:
        seconds["model + bound (stages 5-6)"] = bounding
    seconds["solve (stage 6)"] = deciding - bounding - built
    if not ranked:
        raise select.no_schedule_error(models, rejected, target, time_limit_s=time_limit_s,
                                       total_time_limit_s=total_time_limit_s, block_sizes=block_sizes,
                                       whole=whole_leading_blocks(concrete))
    chosen = select.to_schedule(ranked[0], target, kernel_name, shape or {}, source)
    chosen.split_note = split_note(concrete, candidates.candidates, ranked if counts is None or counts.exhaustive
                                   else ranked[:top_k], None if counts is None else counts.bounds or None)
    if schedule is not None:  # a replayed schedule keeps what its author noted (a baseline's rules)
        chosen.notes = list(schedule.notes)
    block = {k: v for k, v in ranked[0].values.items() if k in ranked[0].model.problem.domains}
    selected = timed("materialize (stage 6)", materialize, concrete, ranked[0].model.candidate, block)
    return Compilation(lowering, candidates, ranked[:max(top_k, 1)] if top_k else ranked, rejected, chosen,
                       selected, seconds, counts, placed_on, kernel)


def default_jobs(cap: int = 8) -> int:
    """The machine's cores (those this process may run on), at most `cap`."""
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, cap))


def _decision(models, concrete, target, footprint, kernel_name, schedule, block_sizes, options, top_k, exhaustive):
    """How stage 6 decides: replay a schedule, evaluate given block sizes, or solve the candidates (in
    bound order, or every one). Each way returns (ranked, rejected, counts or None)."""
    from loom.mapping.candidates import candidate_from_schedule
    from loom.model.constraints import build_model
    from loom.solve import select

    def build_from_schedule(sched):  # a baseline's candidate, which Loom need not retain
        candidate = candidate_from_schedule(concrete, target, sched.view, sched.order, sched.spatial, sched.transfers)
        return build_model(concrete, candidate, target, footprint)

    if schedule is not None:
        source = schedule.source if schedule.source.startswith("baseline") else "schedule-file"
        return (lambda: (*select.replay(models, schedule, kernel=kernel_name, arch=target, build=build_from_schedule),
                         None), source)
    if block_sizes is not None:
        return (lambda: (*select.evaluate_fixed(models, block_sizes), None)), "block-sizes"
    return (lambda: _solve(models, options, top_k, exhaustive)), "solver"


def _solve(models, options, top_k, exhaustive):
    """Stage 6 by the solver: in bound order, or every candidate (also when that finds no schedule, so
    that the error names every candidate's reason)."""
    from loom.solve import order, select

    if not (exhaustive or not top_k or options["total_time_limit_s"] is not None):
        ranked, rejected, counts = order.solve_in_bound_order(models, top_k=top_k, jobs=options["jobs"],
                                                              time_limit_s=options["time_limit_s"],
                                                              seed=options["seed"])
        if ranked:
            return ranked, rejected, counts
    ranked, rejected = select.solve_candidates(models, **options)
    counts = order.SolveCounts(solved=len(models), exhaustive=True,
                               infeasible=sum(r.kind == "infeasible" for r in rejected),
                               not_solved=sum(r.kind == "not solved" for r in rejected))
    return ranked, rejected, counts


def _no_candidate_error(candidates, target: Arch) -> LoomError:
    from loom.errors import UnsupportedError

    axes = ", ".join(f"{s.axis} (extent {s.parallel_extent})" for s in candidates.scores)
    return UnsupportedError(
        f"no mapping candidate: expected at least one way to spread the launch grid ({axes}) over the "
        f"{' x '.join(map(str, target.grid.dims))} cores of {target.name}, found none of the "
        f"{candidates.full_space} in the full space")
