"""`loom` command line: lower | archs (compile, run, emit, bench land with their stages)."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from loom.errors import InternalError, LoomError, ShapeError

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)
err_console = Console(stderr=True, soft_wrap=True)
EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 3


def _fail(err: BaseException, debug: bool) -> None:
    """One clear message; the traceback only with --debug."""
    if debug:
        traceback.print_exception(err)
    if isinstance(err, InternalError) or not isinstance(err, LoomError):
        wrapped = err if isinstance(err, InternalError) else InternalError("cli", err)
        err_console.print(f"{wrapped} (a bug in Loom; rerun with --debug for the traceback)",
                          style="bold red", markup=False, highlight=False)
        raise typer.Exit(EXIT_INTERNAL_ERROR)
    err_console.print(str(err), style="bold red", markup=False, highlight=False)
    raise typer.Exit(EXIT_USER_ERROR)


@app.command()
def lower(
    kernel_file: Path = typer.Argument(..., help="A kernel file: one @helion.kernel, inputs(**sizes), reference()"),
    shape: Optional[str] = typer.Option(None, "--shape", help="Sizes for inputs(), e.g. M=2048,N=256,K=256"),
    arch: str = typer.Option("wormhole_n150", "--arch", help="Architecture name (see `loom archs`) or YAML path"),
    stage: str = typer.Option("frontend", "--stage", help="Print the IR after: frontend, dataflow or concrete"),
    summary: bool = typer.Option(False, "--summary", help="Print the buffer table and L1 footprint instead of IR"),
    dump_ir: Optional[Path] = typer.Option(None, "--dump-ir", help="Write every stage's IR (00_frontend.mlir, …)"),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks"),
) -> None:
    """Lower a kernel file to symbolic MLIR and print it (or its buffer summary)."""
    from loom.ir.text import to_text
    from loom.kernel_file import load_kernel_file, parse_shape
    from loom.pipeline import STAGES
    from loom.pipeline import lower as lower_kernel

    try:
        if stage not in STAGES:
            raise ShapeError(f"--stage {stage}: expected one of {', '.join(STAGES)}")
        source = load_kernel_file(kernel_file)
        args = source.example_args(parse_shape(shape))
        last = "concrete" if dump_ir is not None or summary else stage
        result = lower_kernel(source.kernel, args, arch=arch, stage=max(stage, last, key=STAGES.index))
        if dump_ir is not None:
            for path in result.dump(dump_ir):
                err_console.print(f"wrote {path}", highlight=False)
        if summary:
            _print_summary(result)
        else:
            sys.stdout.write(to_text(result.stages[stage]))
    except typer.Exit:
        raise
    except BaseException as err:  # noqa: BLE001 - every failure becomes one message and an exit status
        _fail(err, debug)


def _print_summary(result) -> None:
    from loom.passes.buffer_summary import buffer_summary
    from loom.passes.l1_footprint import l1_footprint

    module = result.stages["concrete"]
    table = Table(title="Buffers after concretization (stage 3)")
    for column in ("buffer", "shape", "producers", "consumers", "lifetime", "storage", "shares storage with"):
        table.add_column(column, overflow="fold")
    for row in buffer_summary(module):
        table.add_row(row.label, row.shape, ", ".join(row.producers), ", ".join(row.consumers), row.lifetime,
                      row.slot, ", ".join(row.shares_with))
    console = Console() if Console().is_terminal else Console(width=200)
    console.print(table)
    tiling = result.arch.tiling
    footprint = l1_footprint(module, (tiling.tile_rows, tiling.tile_cols))
    console.print(f"L1 footprint (bytes): {footprint.expression()}", highlight=False, soft_wrap=True)
    console.print(f"usable L1 on {result.arch.name}: {result.arch.l1.usable_bytes} bytes", highlight=False)


@app.command("compile")
def compile_command(
    kernel_file: Path = typer.Argument(..., help="A kernel file: one @helion.kernel, inputs(**sizes), reference()"),
    shape: Optional[str] = typer.Option(None, "--shape", help="Sizes for inputs(), e.g. M=4096,N=4096,K=4096"),
    arch: str = typer.Option("wormhole_n150", "--arch", help="Architecture name (see `loom archs`) or YAML path"),
    top_k: int = typer.Option(1, "--top-k", min=1, help="Keep and report the k best candidates"),
    jobs: int = typer.Option(1, "--jobs", min=1, help="Solve candidates in parallel processes"),
    time_limit: float = typer.Option(10.0, "--time-limit", help="CP-SAT time limit per candidate (seconds)"),
    seed: int = typer.Option(0, "--seed", help="CP-SAT random seed"),
    block_sizes: Optional[str] = typer.Option(None, "--block-sizes", help="Skip the solver: tile_m=128,tile_n=128,…"),
    schedule: Optional[Path] = typer.Option(None, "--schedule", help="Replay a complete schedule (JSON)"),
    as_json: bool = typer.Option(False, "--json", help="Print the Schedule and figures as JSON"),
    dump_ir: Optional[Path] = typer.Option(None, "--dump-ir", help="Write every stage's IR and the schedule here"),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks"),
) -> None:
    """Compile a kernel file: choose mapping, transfers, block sizes and pipeline knobs."""
    try:
        result = _compile(kernel_file, shape, arch, top_k, jobs, time_limit, seed, block_sizes, schedule)
        if dump_ir is not None:
            for path in result.dump(dump_ir):
                err_console.print(f"wrote {path}", highlight=False)
        if as_json:
            import json

            data = json.loads(result.schedule.to_json())
            data["candidates"] = {"full_space": result.candidates.full_space,
                                  "retained": len(result.candidates.candidates), "infeasible": len(result.rejected)}
            data["compile_seconds"] = {k: round(v, 4) for k, v in result.seconds.items()}
            data["ranked"] = [{"candidate": r.name, "cycles": r.cycles} for r in result.ranked]
            sys.stdout.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
        else:
            from loom.report import print_compile_report

            print_compile_report(result)
    except typer.Exit:
        raise
    except BaseException as err:  # noqa: BLE001
        _fail(err, debug)


@app.command("run")
def run_command(
    kernel_file: Path = typer.Argument(..., help="A kernel file: one @helion.kernel, inputs(**sizes), reference()"),
    shape: Optional[str] = typer.Option(None, "--shape", help="Sizes for inputs(), e.g. M=1024,N=1024,K=1024"),
    arch: str = typer.Option("wormhole_n150", "--arch", help="Architecture name (see `loom archs`) or YAML path"),
    check: bool = typer.Option(False, "--check", help="Carry data and compare with the kernel file's reference()"),
    trace: Optional[Path] = typer.Option(None, "--trace", help="Write a Perfetto/Chrome trace (JSON) here"),
    jobs: int = typer.Option(1, "--jobs", min=1, help="Solve candidates in parallel processes"),
    time_limit: float = typer.Option(10.0, "--time-limit", help="CP-SAT time limit per candidate (seconds)"),
    block_sizes: Optional[str] = typer.Option(None, "--block-sizes", help="Skip the solver: tile_m=128,…"),
    schedule: Optional[Path] = typer.Option(None, "--schedule", help="Replay a complete schedule (JSON)"),
    quiet: bool = typer.Option(False, "--quiet", help="Print only the simulated figures"),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks"),
) -> None:
    """Compile, then simulate on loom.sim (and check the numbers with --check)."""
    try:
        from loom.kernel_file import load_kernel_file, parse_shape
        from loom.report import print_compile_report, print_run_report
        from loom.run import NumericalMismatch, run

        result = _compile(kernel_file, shape, arch, 1, jobs, time_limit, 0, block_sizes, schedule)
        source = load_kernel_file(kernel_file)
        args = source.example_args(parse_shape(shape) or result.schedule.shape and
                                   {k: v for k, v in result.schedule.shape.items() if k in source.size_names()})
        if check and source.reference is None:
            raise NumericalMismatch(f"{kernel_file} has no reference() to check against")
        outcome = run(result, args, reference=source.reference if check else None, trace=trace is not None,
                      flops=_flops(result))
        if trace is not None:
            outcome.sim.write_trace(trace)
            err_console.print(f"wrote {trace} (open in ui.perfetto.dev)", highlight=False)
        if not quiet:
            print_compile_report(result)
        print_run_report(outcome)
        if outcome.check is not None and not outcome.check.ok:
            raise NumericalMismatch(
                f"{outcome.check.tensor}: max |error| {outcome.check.max_abs_error:.3g} exceeds the tolerance "
                f"{outcome.check.tolerance:.3g} (reference max {outcome.check.max_reference:.3g})")
    except typer.Exit:
        raise
    except BaseException as err:  # noqa: BLE001
        _fail(err, debug)


def _flops(result) -> float | None:
    """FLOPs of a GEMM-like kernel (2·M·N·K) when its shape names them; None otherwise."""
    shape = result.schedule.shape
    if {"M", "N", "K"} <= set(shape):
        return 2.0 * shape["M"] * shape["N"] * shape["K"]
    return None


def _compile(kernel_file, shape, arch, top_k, jobs, time_limit, seed, block_sizes, schedule):
    from loom.kernel_file import load_kernel_file, parse_shape
    from loom.pipeline import compile as compile_kernel
    from loom.schedule import Schedule
    from loom.solve.select import parse_block_sizes

    source = load_kernel_file(kernel_file)
    sizes = parse_shape(shape)
    replay = Schedule.load(schedule) if schedule is not None else None
    if replay is not None:
        sizes = sizes or dict(replay.shape)
        arch = replay.arch if arch == "wormhole_n150" else arch
    args = source.example_args(sizes)
    full_shape = {**source.size_names(), **sizes}
    return compile_kernel(source.kernel, args, arch, shape=full_shape, top_k=top_k, jobs=jobs,
                          time_limit_s=time_limit, seed=seed,
                          block_sizes=parse_block_sizes(block_sizes) if block_sizes else None, schedule=replay)


@app.command()
def archs(debug: bool = typer.Option(False, "--debug", help="Show tracebacks")) -> None:
    """List the architecture descriptions with their headline numbers."""
    from loom.arch import list_archs, load_arch

    try:
        table = Table(title="Loom architecture descriptions (loom/archs/*.yaml)")
        rows = [load_arch(name) for name in list_archs()]
        columns = list(rows[0].headline()) if rows else []
        table.add_column("name", style="bold")
        for column in columns:
            table.add_column(column)
        for a in rows:
            table.add_row(a.name, *a.headline().values())
        console = Console()
        if not console.is_terminal:
            console = Console(width=160)
        console.print(table)
    except BaseException as err:  # noqa: BLE001
        _fail(err, debug)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
