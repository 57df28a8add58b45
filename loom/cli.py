"""`loom` command line: lower | archs (compile, run, emit, bench land with their stages)."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from loom.errors import InternalError, LoomError

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
    dump_ir: Optional[Path] = typer.Option(None, "--dump-ir", help="Write each stage's IR (00_frontend.mlir, …) here"),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks"),
) -> None:
    """Lower a kernel file to symbolic MLIR and print it."""
    from loom.ir.text import to_text
    from loom.kernel_file import load_kernel_file, parse_shape
    from loom.pipeline import lower as lower_kernel

    try:
        source = load_kernel_file(kernel_file)
        args = source.example_args(parse_shape(shape))
        result = lower_kernel(source.kernel, args, arch=arch)
        if dump_ir is not None:
            for path in result.dump(dump_ir):
                err_console.print(f"wrote {path}", highlight=False)
        sys.stdout.write(to_text(result.module))
    except typer.Exit:
        raise
    except BaseException as err:  # noqa: BLE001 - every failure becomes one message and an exit status
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
