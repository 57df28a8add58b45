"""Run an emitted TT-Lang program in tt-lang-sim, in this process, and read back its statistics.

`run_ttlang_sim` emits a `Program` (`ttlang.py`), executes the file with `ttl`/`ttnn` shadowed by
tt-lang-sim, and returns the outputs with tt-lang-sim-stats' per-tensor DRAM tiles and per-pipe
tiles, keyed by Loom's tensor names. What the simulator rejects raises `TtlangSimError`.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from loom.arch import Arch, load_arch
from loom.backend import program as P
from loom.backend.ttlang import emit_ttlang
from loom.backend.ttlang_lower import RESERVED, Names
from loom.errors import LoomError


@dataclass
class TtlangResult:
    """One run of an emitted program in tt-lang-sim."""

    source: str
    outputs: dict[str, np.ndarray]
    dram_read_tiles: dict[str, int]
    """Per Loom tensor: tiles read from DRAM (tt-lang-sim's `DRAM R` column of tt-lang-sim-stats)."""
    dram_write_tiles: dict[str, int]
    pipe_tiles: dict[str, int]
    """Per pipe (`pipe_(0,0)_to_(1:8,0)`): tiles sent into it (`Tiles Written` of tt-lang-sim-stats)."""
    pipe_received_tiles: dict[str, int]
    tensor_stats: dict[str, dict[str, int]] = field(default_factory=dict)
    pipe_stats: dict[str, dict[str, int]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        lines = ["tt-lang-sim: DRAM tiles read per tensor: "
                 + ", ".join(f"{k} {v}" for k, v in sorted(self.dram_read_tiles.items())),
                 "tt-lang-sim: DRAM tiles written per tensor: "
                 + ", ".join(f"{k} {v}" for k, v in sorted(self.dram_write_tiles.items()))]
        if self.pipe_tiles:
            lines.append(f"tt-lang-sim: tiles sent per pipe ({len(self.pipe_tiles)} pipes, "
                         f"{sum(self.pipe_tiles.values())} tiles):")
            lines += [f"  {k}: {v} sent, {self.pipe_received_tiles.get(k, 0)} received"
                      for k, v in sorted(self.pipe_tiles.items())]
        return "\n".join(lines)


def run_ttlang_sim(program: P.Program, arch: Arch | str, inputs: dict[str, np.ndarray], *,
                   source_notes: dict | None = None, scheduler: str = "greedy") -> TtlangResult:
    """Emit `program`, execute it in-process in tt-lang-sim on `inputs` (input tensor name -> array
    of the program's whole-tile shape) and return the outputs and the simulator's statistics."""
    arch = arch if isinstance(arch, Arch) else load_arch(arch)
    source = emit_ttlang(program, arch, source_notes=source_notes)
    missing = [t.name for t in program.tensors if t.kind == "input" and t.name not in inputs]
    if missing:
        raise ValueError(f"expected inputs for {', '.join(missing)}")
    fd, path = tempfile.mkstemp(prefix=f"loom_ttl_{os.getpid()}_", suffix=".py")
    with os.fdopen(fd, "w") as f:
        f.write(source)
    try:
        with _Simulator(arch, scheduler) as sim:
            import torch

            module = sim.load(path)
            names = _tensor_idents(program)
            args = [torch.from_numpy(np.ascontiguousarray(inputs[t.name], dtype=np.float32))
                    for t in program.tensors if t.kind == "input"]
            start = time.perf_counter()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    outs = module["run"](*args)
                except Exception as err:  # noqa: BLE001 - report what the simulator found, not its crash
                    raise TtlangSimError("; ".join([_sim_failure(err), *sim.diagnostics])) from err
            seconds = time.perf_counter() - start
            tensor_stats, pipe_stats = sim.stats()
    finally:
        os.unlink(path)
    by_ident = {v: k for k, v in names.items()}
    tstats = {by_ident.get(k, k): v for k, v in tensor_stats.items()}
    return TtlangResult(
        source=source,
        outputs={k: v.detach().numpy().astype(np.float32) for k, v in outs.items()},
        dram_read_tiles={k: v.get("dram_read", 0) for k, v in tstats.items() if v.get("tiles_read")},
        dram_write_tiles={k: v.get("dram_write", 0) for k, v in tstats.items() if v.get("tiles_written")},
        pipe_tiles={k: v.get("tiles_written", 0) for k, v in pipe_stats.items()},
        pipe_received_tiles={k: v.get("tiles_read", 0) for k, v in pipe_stats.items()},
        tensor_stats=tstats, pipe_stats=pipe_stats,
        warnings=[str(w.message) for w in caught], seconds=seconds)


class TtlangSimError(LoomError):
    """tt-lang-sim rejected or could not finish an emitted program (deadlock, misuse of a block, …)."""

    kind = "tt-lang-sim error"


def _sim_failure(err: BaseException) -> str:
    """The simulator's own error. tt-lang-sim 1.1.6 crashes while pretty-printing a kernel error
    (`FileNotFoundError: .../ttl/ttl/diagnostics.py`, a packaging bug); the real error is its context."""
    seen = err
    while isinstance(seen, FileNotFoundError) and "diagnostics" in str(seen) and seen.__context__ is not None:
        seen = seen.__context__
    return f"{type(seen).__name__}: {seen}"


class _Simulator:
    """tt-lang-sim in this process: shadow `ttl`/`ttnn`, trace copies and pipes, restore torch after.

    Importing tt-lang-sim rebinds `torch.bfloat16`/`torch.float16` to float32 (its default float32
    promotion); that state is kept only while a program runs, so Loom's own use of torch dtypes
    around it is unaffected."""

    def __init__(self, arch: Arch, scheduler: str):
        self.arch, self.scheduler = arch, scheduler

    def __enter__(self) -> _Simulator:
        import torch

        self.saved_modules = {k: sys.modules.get(k) for k in ("ttl", "ttnn")}
        # tt-lang-sim 1.1.6 pretty-prints kernel errors and deadlocks through a module its wheel lacks
        # (ttl/ttl/diagnostics.py): record those messages instead.
        from ttl.sim import diagnostics, greenlet_scheduler, program, ttnnsim
        from ttl.sim.context import get_context, reset_context
        from ttl.sim.program import set_max_l1_bytes
        from ttl.sim.trace import set_tracing
        from ttl.sim.ttlang_sim import setup_simulator_imports

        self.diagnostics: list[str] = []
        self.patched = [(m, m.print_diagnostic_error) for m in (diagnostics, greenlet_scheduler, program)]
        for module, _ in self.patched:
            module.print_diagnostic_error = self.record
        self.promoted = dict(ttnnsim._PROMOTABLE_FLOAT_DTYPES)
        for attr in self.promoted:
            setattr(torch, attr, torch.float32)
        setup_simulator_imports()
        reset_context()
        get_context().config.scheduler_algorithm = self.scheduler
        set_max_l1_bytes(self.arch.l1.usable_bytes)
        set_tracing(frozenset({"copy", "pipe"}))
        self.get_context, self.set_tracing = get_context, set_tracing
        return self

    def __exit__(self, *exc: object) -> None:
        import torch
        from ttl.sim.context import reset_context

        self.set_tracing(frozenset())
        reset_context()
        for module, original in self.patched:
            module.print_diagnostic_error = original
        for attr, original in self.promoted.items():
            setattr(torch, attr, original)
        for k, v in self.saved_modules.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v

    def record(self, name: str, message: str, source_file: str, source_line: int, col: int = 1) -> None:
        try:
            code = Path(source_file).read_text().splitlines()[source_line - 1].strip()
        except (OSError, IndexError):
            code = ""
        self.diagnostics.append(f"{name}: {message} at line {source_line}" + (f" `{code}`" if code else ""))

    def load(self, path: str) -> dict:
        import runpy

        return runpy.run_path(path, run_name="loom_ttlang")

    def stats(self) -> tuple[dict, dict]:
        """tt-lang-sim-stats' aggregation (per tensor, per pipe) of this run's trace."""
        from sim_stats.__main__ import _accumulate
        from ttl.sim.ttlang_sim import _write_jsonl_trace

        fd, path = tempfile.mkstemp(suffix=".jsonl")
        os.close(fd)
        try:
            _write_jsonl_trace(Path(path), self.get_context().trace_events)
            tensor_stats, pipe_stats, _, _ = _accumulate(Path(path))
        finally:
            os.unlink(path)
        return tensor_stats, pipe_stats


def _tensor_idents(program: P.Program) -> dict[str, str]:
    """Loom tensor name -> its identifier in the emitted file (the name tt-lang-sim's statistics use)."""
    names = Names(used=set(RESERVED))
    return {t.name: names.get("tensor", t.name) for t in program.tensors}
