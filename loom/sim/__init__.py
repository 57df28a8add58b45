"""Loom's simulator: the independent measurement of per-core programs (`loom.backend.program`).

`simulate(program)` executes a `Program` event by event on the architecture it names, reading
every hardware number from the architecture YAML: three engines per core (reader, compute,
writer), circular buffers with back-pressure, semaphores, DRAM banks, both NoCs with
dimension-ordered routing, link contention and multicast trees (see `noc.py` for the timing
model, `movement.py` and `compute.py` for what each instruction costs). `functional=True` carries
real data and returns the output tensors; `trace=True` records a Perfetto trace.

Modules: engine (clock and roles), movement (transfers, semaphores), operands + compute (compute
ops), noc (fabric and timing model), data (dtypes, tiles), report (SimResult), trace, steady
(extrapolation), errors; workloads and gemm_workload hold hand-written programs (microbenchmarks,
softmax, TTNN-style 2-D multicast GEMM) for calibration and tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from loom.arch import Arch, load_arch
from loom.backend.program import Program
from loom.backend.validate import check_program
from loom.sim.engine import run_program
from loom.sim.errors import DeadlockError, Wait
from loom.sim.report import SimResult, build_result
from loom.sim.steady import extrapolation_plan

__all__ = ["AUTO_EXTRAPOLATE", "DeadlockError", "SimResult", "Wait", "simulate"]

AUTO_EXTRAPOLATE = 2_000_000
"""Executed instructions above which `simulate` extrapolates by default (about 10 s of simulation)."""


def simulate(program: Program, arch: Arch | str | Path | None = None, *, functional: bool = False,
             inputs: Mapping[str, Any] | None = None, trace: bool = False, extrapolate: bool | None = None,
             flops: float | None = None) -> SimResult:
    """Simulate `program` on `arch` (default: the architecture the program names).

    functional: carry data; `inputs` maps input tensor names to arrays (numpy or torch), outputs
        come back in `SimResult.outputs`.
    trace: record events for `SimResult.write_trace`.
    extrapolate: steady-state extrapolation of the outer loop nest (steady.py). None (default)
        uses it in timing-only runs of large programs (at least AUTO_EXTRAPOLATE instructions
        executed, an outer nest of at least 32 iterations); True whenever the nest allows; False never.
        A padded program (a tensor with a `valid` extent) is always simulated in full.
    flops: FLOP count for `SimResult.tflops()` (default: `program.meta["flops"]` if present).
    """
    if not isinstance(arch, Arch):
        arch = load_arch(arch if arch is not None else program.arch)
    if extrapolate and (functional or trace):
        raise ValueError("expected extrapolate only in timing-only runs, found functional or trace requested")
    meta = {"program": program.name, "arch": arch.name, "clock_ghz": arch.clock_ghz,
            "l1": max(program.l1_bytes(arch).values(), default=0),
            "flops": flops if flops is not None else program.meta.get("flops")}
    padded = any(t.valid is not None and tuple(t.valid) != tuple(t.shape) for t in program.tensors)
    if extrapolate and padded:
        raise ValueError("expected no extrapolation of a padded program (its last iterations move less "
                         "data than its first), found extrapolate=True")
    if extrapolate is not False and not functional and not trace and not padded:
        steady = extrapolation_plan(program, min_instructions=AUTO_EXTRAPOLATE if extrapolate is None else 0)
        if steady is not None:
            check_program(program, arch)
            r1, sim, w1 = run_program(steady["short"], arch, False, None, False)
            r2, sim, w2 = run_program(steady["long"], arch, False, None, False)
            k1, k2, total = steady["k1"], steady["k2"], steady["total"]
            f = (total - k2) / (k2 - k1)
            if r2.cycles > r1.cycles:
                result = build_result(r2.combine(r1, 1 + f, -f), meta, sim.fabric)
                result.extrapolated = True
                nest = "x".join(map(str, steady["counts"]))
                result.note = (f"steady state: simulated {k1} and {k2} of {total} iterations of the outer "
                               f"loop nest {nest} and extended linearly")
                result.wall_seconds = w1 + w2
                return result
    raw, sim, wall = run_program(program, arch, functional, inputs, trace)
    result = build_result(raw, meta, sim.fabric)
    result.wall_seconds = wall
    result.trace = sim.tracer
    if functional:
        result.outputs = sim.outputs()
    return result
