"""`loom` command line: lower | archs (compile, run, emit, bench land with their stages)."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from loom.errors import InternalError, LoomError, OptionError

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
    shape: str | None = typer.Option(None, "--shape", help="Sizes for inputs(), e.g. M=2048,N=256,K=256"),
    arch: str = typer.Option("wormhole_n150", "--arch", help="Architecture name (see `loom archs`) or YAML path"),
    stage: str = typer.Option("frontend", "--stage", help="Print the IR after: frontend, dataflow or concrete"),
    summary: bool = typer.Option(False, "--summary", help="Print the buffer table and L1 footprint instead of IR"),
    dump_ir: Path | None = typer.Option(None, "--dump-ir", help="Write every stage's IR (00_frontend.mlir, …)"),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks"),
) -> None:
    """Lower a kernel file to symbolic MLIR and print it (or its buffer summary)."""
    from loom.ir.text import to_text
    from loom.kernel_file import load_kernel_file, parse_shape
    from loom.pipeline import STAGES
    from loom.pipeline import lower as lower_kernel

    try:
        if stage not in STAGES:
            raise OptionError(f"--stage {stage}: expected one of {', '.join(STAGES)}")
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
    shape: str | None = typer.Option(None, "--shape", help="Sizes for inputs(), e.g. M=4096,N=4096,K=4096"),
    arch: str = typer.Option("wormhole_n150", "--arch", help="Architecture name (see `loom archs`) or YAML path"),
    top_k: int = typer.Option(1, "--top-k", min=1, help="Keep and report the k best candidates"),
    jobs: int | None = typer.Option(None, "--jobs", min=1, show_default="the machine's cores, at most 8",
                                    help="Solve candidates in parallel processes"),
    time_limit: float = typer.Option(10.0, "--time-limit", help="CP-SAT time limit per candidate (seconds)"),
    total_time_limit: float | None = typer.Option(
        None, "--total-time-limit", help="Time limit for solving all candidates together (seconds; default none)"),
    seed: int = typer.Option(0, "--seed", help="CP-SAT random seed"),
    block_sizes: str | None = typer.Option(None, "--block-sizes", help="Skip the solver: tile_m=128,tile_n=128,…"),
    schedule: Path | None = typer.Option(None, "--schedule", help="Replay a complete schedule (JSON)"),
    as_json: bool = typer.Option(False, "--json", help="Print the Schedule and figures as JSON"),
    dump_ir: Path | None = typer.Option(None, "--dump-ir", help="Write every stage's IR and the schedule here"),
    exhaustive: bool = typer.Option(False, "--exhaustive",
                                    help="Solve every candidate (default: in bound order, skipping those that "
                                         "cannot enter the top-k; same choice)"),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks"),
) -> None:
    """Compile a kernel file: choose mapping, transfers, block sizes and pipeline knobs."""
    try:
        result = _compile(kernel_file, shape, arch, top_k, jobs, time_limit, seed, block_sizes, schedule,
                          total_time_limit, exhaustive=exhaustive)
        if dump_ir is not None:
            for path in result.dump(dump_ir):
                err_console.print(f"wrote {path}", highlight=False)
        if as_json:
            import json

            data = json.loads(result.schedule.to_json())
            counts = result.counts
            data["candidates"] = {"full_space": result.candidates.full_space,
                                  "retained": len(result.candidates.candidates),
                                  "solved": counts.solved if counts else 0,
                                  "pruned_by_bound": sum(r.kind == "pruned" for r in result.rejected),
                                  "infeasible": sum(r.kind == "infeasible" for r in result.rejected),
                                  "not_solved": sum(r.kind == "not solved" for r in result.rejected)}
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
    shape: str | None = typer.Option(None, "--shape", help="Sizes for inputs(), e.g. M=1024,N=1024,K=1024"),
    arch: str = typer.Option("wormhole_n150", "--arch", help="Architecture name (see `loom archs`) or YAML path"),
    check: bool = typer.Option(False, "--check", help="Carry data and compare with the kernel file's reference()"),
    trace: Path | None = typer.Option(None, "--trace", help="Write a Perfetto/Chrome trace (JSON) here"),
    jobs: int | None = typer.Option(None, "--jobs", min=1, show_default="the machine's cores, at most 8",
                                    help="Solve candidates in parallel processes"),
    time_limit: float = typer.Option(10.0, "--time-limit", help="CP-SAT time limit per candidate (seconds)"),
    total_time_limit: float | None = typer.Option(
        None, "--total-time-limit", help="Time limit for solving all candidates together (seconds; default none)"),
    block_sizes: str | None = typer.Option(None, "--block-sizes", help="Skip the solver: tile_m=128,…"),
    schedule: Path | None = typer.Option(None, "--schedule", help="Replay a complete schedule (JSON)"),
    quiet: bool = typer.Option(False, "--quiet", help="Print only the simulated figures"),
    backend: str = typer.Option("loom-sim", "--backend",
                                help="loom-sim (Loom's simulator) or ttlang-sim (emit TT-Lang, run it in "
                                "tt-lang-sim, check against torch, report its DRAM and pipe tiles)"),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks"),
) -> None:
    """Compile, then simulate on loom.sim (and check the numbers with --check)."""
    try:
        from loom.kernel_file import load_kernel_file, parse_shape
        from loom.report import print_compile_report, print_run_report
        from loom.run import NumericalMismatch, run

        _check_backend(backend, trace)
        result = _compile(kernel_file, shape, arch, 1, jobs, time_limit, 0, block_sizes, schedule, total_time_limit,
                          portable=backend == "ttlang-sim")
        if backend == "ttlang-sim":
            return _run_ttlang_sim(result, kernel_file, shape, quiet)
        source = load_kernel_file(kernel_file)
        args = source.example_args(parse_shape(shape) or result.schedule.shape and
                                   {k: v for k, v in result.schedule.shape.items() if k in source.size_names()},
                                   meta=not check)
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
            raise NumericalMismatch(outcome.check.mismatch())
    except typer.Exit:
        raise
    except BaseException as err:  # noqa: BLE001
        _fail(err, debug)


def _check_backend(backend: str, trace: Path | None) -> None:
    from loom.errors import OptionError

    if backend not in ("loom-sim", "ttlang-sim"):
        raise OptionError(f"--backend {backend}: expected loom-sim or ttlang-sim")
    if backend == "ttlang-sim" and trace is not None:
        raise OptionError("--trace writes a loom.sim trace; it does not apply to --backend ttlang-sim")


def _run_ttlang_sim(result, kernel_file: Path, shape: str | None, quiet: bool) -> None:
    """`loom run --backend ttlang-sim`: emit TT-Lang, run it in tt-lang-sim, compare with torch and
    cross-check tt-lang-sim's DRAM tile reads per tensor against loom.sim's."""
    from loom.backend.split import build_program
    from loom.backend.ttlang_notes import schedule_notes
    from loom.backend.ttlang_sim import run_ttlang_sim
    from loom.kernel_file import load_kernel_file, parse_shape
    from loom.report import print_compile_report
    from loom.run import NumericalMismatch, check_outputs, padded_inputs
    from loom.sim import simulate

    source = load_kernel_file(kernel_file)
    sizes = parse_shape(shape) or {k: v for k, v in result.schedule.shape.items() if k in source.size_names()}
    args = source.example_args(sizes)
    arch = result.lowering.arch
    program = build_program(result.lowering.stages["concrete"], result.ranked[0], arch)
    outcome = run_ttlang_sim(program, arch, padded_inputs(program, args, result.kernel),
                             source_notes=schedule_notes(result, result.ranked[0]))
    loom_sim = simulate(program, arch, extrapolate=False)
    if not quiet:
        print_compile_report(result)
    console = Console() if Console().is_terminal else Console(width=160)
    console.print(f"[bold]tt-lang-sim[/] ran {program.name} on {len(program.cores)} cores in "
                  f"{outcome.seconds:.2f} s", highlight=False)
    mismatch = None
    if source.reference is not None:
        check = check_outputs(result, program, outcome.outputs, args, source.reference)
        console.print(check.report_line(), highlight=False)
        mismatch = None if check.ok else check.mismatch()
    loom_reads = {k: int(v) for k, v in loom_sim.dram_read_tiles_by_tensor.items() if v}
    reads = ", ".join(f"{k} {v} (loom.sim {loom_reads.get(k, 0)})"
                      for k, v in sorted(outcome.dram_read_tiles.items()))
    writes = ", ".join(f"{k} {v}" for k, v in sorted(outcome.dram_write_tiles.items()))
    console.print(f"  DRAM tiles     read {reads}; written {writes}", highlight=False)
    if outcome.pipe_tiles:
        console.print(f"  pipes          {len(outcome.pipe_tiles)} pipes, "
                      f"{sum(outcome.pipe_tiles.values())} tiles sent:", highlight=False)
        for name, tiles in sorted(outcome.pipe_tiles.items()):
            console.print(f"                 {name}: {tiles} tiles sent, "
                          f"{outcome.pipe_received_tiles.get(name, 0)} received", highlight=False)
    for w in outcome.warnings:
        console.print(f"  tt-lang-sim warning: {w}", highlight=False)
    if outcome.dram_read_tiles != loom_reads:
        err_console.print(f"DRAM tile reads differ: tt-lang-sim {outcome.dram_read_tiles}, loom.sim "
                          f"{loom_reads} (a bug in Loom's simulator or in the TT-Lang emission)",
                          style="bold red", markup=False, highlight=False)
        raise typer.Exit(EXIT_INTERNAL_ERROR)
    if mismatch:
        raise NumericalMismatch(mismatch)


@app.command("emit")
def emit_command(
    kernel_file: Path = typer.Argument(..., help="A kernel file: one @helion.kernel, inputs(**sizes), reference()"),
    shape: str | None = typer.Option(None, "--shape", help="Sizes for inputs(), e.g. M=1024,N=1024,K=1024"),
    arch: str = typer.Option("wormhole_n150", "--arch", help="Architecture name (see `loom archs`) or YAML path"),
    target: str = typer.Option("ttlang", "--target", help="What to emit: ttlang (one TT-Lang file)"),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write here (default: stdout)"),
    jobs: int | None = typer.Option(None, "--jobs", min=1, show_default="the machine's cores, at most 8",
                                    help="Solve candidates in parallel processes"),
    time_limit: float = typer.Option(10.0, "--time-limit", help="CP-SAT time limit per candidate (seconds)"),
    block_sizes: str | None = typer.Option(None, "--block-sizes", help="Skip the solver: tile_m=128,…"),
    schedule: Path | None = typer.Option(None, "--schedule", help="Replay a complete schedule (JSON)"),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks"),
) -> None:
    """Compile, split into per-core programs and write them for a backend (TT-Lang)."""
    try:
        from loom.backend.split import build_program
        from loom.backend.ttlang import emit_ttlang
        from loom.backend.ttlang_notes import schedule_notes, torch_reference
        from loom.errors import OptionError
        from loom.kernel_file import load_kernel_file

        if target != "ttlang":
            raise OptionError(f"--target {target}: expected ttlang")
        result = _compile(kernel_file, shape, arch, 1, jobs, time_limit, 0, block_sizes, schedule, portable=True)
        program = build_program(result.lowering.stages["concrete"], result.ranked[0], result.lowering.arch)
        source = load_kernel_file(kernel_file)
        text = emit_ttlang(program, result.lowering.arch,
                           source_notes=schedule_notes(result, result.ranked[0]),
                           reference=torch_reference(result, source.reference))
        if output is None:
            sys.stdout.write(text)
        else:
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(text)
            err_console.print(f"wrote {output} (run it with: tt-lang-sim {output})", highlight=False)
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


def _compile(kernel_file, shape, arch, top_k, jobs, time_limit, seed, block_sizes, schedule,
             total_time_limit=None, portable=False, exhaustive=False):
    """Compile a kernel file; `portable=True` for the TT-Lang backend (no cross-core combine, no
    kept panels: TT-Lang indexes no blocks inside a CB)."""
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
    args = source.example_args(sizes, meta=True)  # compiling needs shapes, not data
    full_shape = {**source.size_names(), **sizes}
    return compile_kernel(source.kernel, args, arch, shape=full_shape, top_k=top_k, jobs=jobs,
                          time_limit_s=time_limit, seed=seed, total_time_limit_s=total_time_limit,
                          block_sizes=parse_block_sizes(block_sizes) if block_sizes else None, schedule=replay,
                          portable=portable, exhaustive=exhaustive)


@app.command("bench")
def bench_command(
    kernel: str = typer.Argument(..., help="gemm (or matmul), flash_attention, flash_decode, or a kernel file FILE.py"),
    arch: str = typer.Option("wormhole_n150", "--arch", help="wormhole_n150 or blackhole_p150"),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N shapes"),
    jobs: int | None = typer.Option(None, "--jobs", min=1, show_default="the machine's cores, at most 8",
                                    help="Solve candidates in parallel processes"),
    baseline: str = typer.Option("default", "--baseline",
                                 help="default (TTNN with no program config), tuned (TTNN hand-tuned) or both"),
    shapes_text: str | None = typer.Option(None, "--shapes", help='Your shapes instead of the paper\'s: '
                                           '"M=256,N=256,K=256;M=512,..." or a YAML list; needed for FILE.py'),
    out: Path = typer.Option(Path("benchmarks/results"), "--out", help="Where the CSV, JSON and PNGs go"),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks"),
) -> None:
    """Loom vs TTNN (its default choices, hand-tuned configs, or both) over the paper's shape set or
    your own, simulated on loom.sim."""
    try:
        import json

        from rich.progress import Progress

        from loom.bench.paper import bench, output_files, shapes
        from loom.bench.rows import BASELINE_COLUMNS, BASELINE_LABELS
        from loom.bench.user_kernels import baseline_kind, parse_shapes
        from loom.calibrate.yardstick import yardstick_line
        from loom.kernel_file import load_kernel_file

        baselines = {"default": ("default",), "tuned": ("tuned",), "both": ("default", "tuned")}.get(baseline)
        if baselines is None:
            raise OptionError(f"--baseline {baseline}: expected default, tuned or both")
        cases = parse_shapes(shapes_text) if shapes_text is not None else None
        source = kind = None
        if kernel.endswith(".py"):
            if cases is None:
                raise OptionError(f"bench {kernel}: a kernel file needs --shapes \"NAME=VALUE,...;...\"")
            source = load_kernel_file(kernel)
            cases = [{**source.size_names(), **c} for c in cases]
            source.example_args(cases[0], meta=True)  # a size the file does not take fails here, by name
            kind, why = baseline_kind(source)
            err_console.print(f"{source.name}: " + (f"compared with TTNN's {kind} ({why})" if kind else
                                                     f"no TTNN baseline for this kernel: it {why}"), highlight=False)
            name = source.name
        else:
            name = "matmul" if kernel == "gemm" else kernel
            if name not in ("matmul", "flash_attention", "flash_decode", "causal_attention"):
                raise OptionError("bench: expected gemm, flash_attention, flash_decode, causal_attention or a FILE.py, "
                                  f"found '{kernel}'")
        all_cases = shapes(name, arch) if cases is None else cases
        total = len(all_cases[:limit] if limit else all_cases)
        with Progress(console=err_console, transient=True) as progress:
            task = progress.add_task(f"{name} on {arch}", total=total)
            rows, summary = bench(name, arch, limit=limit, jobs=jobs, out_dir=out, baselines=baselines, cases=cases,
                                  source=source, kind=kind,
                                  progress=lambda i, n, row: progress.update(task, completed=i))
        against = " and ".join(BASELINE_LABELS[b] for b in baselines)
        table = Table(title=f"{name} on {arch}: Loom vs {against} (simulated on loom.sim)")
        for column in ("shape", "Loom candidate", "block sizes", "Loom cycles"):
            table.add_column(column)
        for b in baselines:
            table.add_column(f"{BASELINE_LABELS[b]} cycles")
            table.add_column(f"speedup vs {BASELINE_LABELS[b]}")
        table.add_column("model err")
        table.add_column("of roofline")
        for r in rows:
            cells = []
            for b in baselines:
                cycles, speedup = (getattr(r, c) for c in BASELINE_COLUMNS[b])
                cells += [f"{cycles:,.0f}" if cycles else "-", f"{speedup:.2f}x" if speedup else "-"]
            table.add_row(r.shape, r.loom_candidate, r.loom_block_sizes, f"{r.loom_sim_cycles:,.0f}", *cells,
                          f"{r.model_error:+.0%}", f"{r.of_roofline:.0%}" if r.of_roofline else "-")
        Console(width=220).print(table)
        err_console.print(f"yardstick: {yardstick_line(arch)}", highlight=False)
        summary_path = out / f"{name}_{arch}.summary.json"
        summary_path.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
        for path in [*output_files(name, arch, out, baselines), summary_path]:
            err_console.print(f"wrote {path}", highlight=False)
        sys.stdout.write(json.dumps(summary, sort_keys=True) + "\n")
    except typer.Exit:
        raise
    except BaseException as err:  # noqa: BLE001
        _fail(err, debug)


@app.command("calibrate")
def calibrate_command(
    files: list[Path] = typer.Argument(..., help="Ground-truth YAML files (shared/reference/ground_truth format)"),
    kernel: str | None = typer.Option(None, "--kernel", help="Only gemm, sdpa or data_movement points"),
    chip: str | None = typer.Option(None, "--chip", help="Only points of this chip (as the file names it)"),
    as_json: bool = typer.Option(False, "--json", help='Print {"rows": [...], "summary": [...]} as JSON'),
    jobs: int = typer.Option(1, "--jobs", min=1, help="Simulate in parallel processes"),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks"),
) -> None:
    """Simulate every published point Loom can express and compare with the measurement."""
    try:
        import json

        from rich.progress import Progress

        from loom.calibrate import KERNELS, calibrate, load_points, point_table, summarise, summary_table

        if kernel is not None and kernel not in KERNELS:
            raise OptionError(f"--kernel {kernel}: expected one of {', '.join(KERNELS)}")
        points = []
        for f in files:
            points += load_points(f)
        if kernel is not None:
            points = [p for p in points if p.kernel in KERNELS[kernel]]
        if chip is not None:
            points = [p for p in points if p.chip == chip]
        with Progress(console=err_console, transient=True) as progress:
            task = progress.add_task(f"simulating {len(points)} points", total=None)
            rows = calibrate(points, jobs=jobs,
                             progress=lambda i, n: progress.update(task, completed=i, total=n))
        summary = summarise(rows)
        if as_json:
            data = {"rows": [r.as_json() for r in rows], "summary": summary}
            sys.stdout.write(json.dumps(data, indent=1) + "\n")
        else:
            sys.stdout.write(point_table(rows) + "\n\n" + summary_table(summary, rows) + "\n")
    except typer.Exit:
        raise
    except BaseException as err:  # noqa: BLE001
        _fail(err, debug)


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
