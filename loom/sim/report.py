"""What a simulation reports: `SimResult`, built from the raw counters of one run (`RawStats`).

Utilisation per engine kind: for the compute engine the fraction of the kernel time it spends
in compute ops; for the reader and writer RISCs the fraction of kernel time they are not
stalled on a CB or a semaphore (issuing transfers or waiting for their own transfers at a
barrier). Averages over the cores that run that role, as shares of the time the programs run: the
kernel time (the simulated time after the launch overhead) less each core's setup
(`kernel_setup_cycles`), when no role runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from loom.sim.trace import TraceRecorder

ENGINES = ("reader", "compute", "writer")


@dataclass
class RawStats:
    """Counters of one run; linear in the number of steady-state iterations (see steady.py)."""

    cycles: float
    launch: float
    active: dict[str, float]           # per engine kind: summed active (or busy) cycles
    roles: dict[str, int]              # per engine kind: number of roles running it
    read_bytes: dict[str, float]
    write_bytes: dict[str, float]
    read_tiles: dict[str, float]
    write_tiles: dict[str, float]
    busy: np.ndarray                   # per link, bank and port (not streams): queued work (cycles)
    events: float
    compute_busy: np.ndarray = field(default_factory=lambda: np.zeros(0))  # per core: its compute role's busy cycles
    setup: float = 0.0                 # each core's fixed start-up after the launch (arch.kernel_setup_cycles)

    def combine(self, other: RawStats, a: float, b: float) -> RawStats:
        """`a * self + b * other` for every counter (counts of roles are kept)."""
        def mix(x: dict[str, float], y: dict[str, float]) -> dict[str, float]:
            return {k: a * x.get(k, 0.0) + b * y.get(k, 0.0) for k in {*x, *y}}
        return RawStats(a * self.cycles + b * other.cycles, self.launch, mix(self.active, other.active),
                        dict(self.roles), mix(self.read_bytes, other.read_bytes),
                        mix(self.write_bytes, other.write_bytes), mix(self.read_tiles, other.read_tiles),
                        mix(self.write_tiles, other.write_tiles), a * self.busy + b * other.busy,
                        a * self.events + b * other.events, a * self.compute_busy + b * other.compute_busy,
                        self.setup)


@dataclass
class SimResult:
    """The measurement of one program on one architecture."""

    program: str
    arch: str
    clock_ghz: float
    cycles: float
    """Simulated cycles from launch to the last role finishing, launch overhead included."""
    launch_cycles: float
    utilisation: dict[str, float]
    dram_read_bytes_by_tensor: dict[str, float]
    dram_write_bytes_by_tensor: dict[str, float]
    dram_read_tiles_by_tensor: dict[str, float]
    dram_write_tiles_by_tensor: dict[str, float]
    busiest_link: str
    busiest_link_utilisation: float
    busiest_bank: str
    busiest_bank_utilisation: float
    l1_bytes_per_core: int
    """Largest L1 allocation of any core (CB slots x tile bytes + local buffers)."""
    compute_busy_range: tuple[float, float] = (0.0, 0.0)
    """Least and most busy cycles of a core's compute role, over the cores that compute: how evenly the
    work is spread (1.0 = min / max is perfectly balanced)."""
    flops: float | None = None
    extrapolated: bool = False
    note: str = ""
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    events: float = 0
    wall_seconds: float = 0.0
    trace: TraceRecorder | None = field(default=None, repr=False)
    setup_cycles: float = 0.0
    """Each core's fixed start-up inside the kernel time (`kernel_setup_cycles`): no role runs before it."""

    @property
    def compute_balance(self) -> float:
        """The least busy computing core's compute time over the busiest's (1.0: perfectly even)."""
        low, high = self.compute_busy_range
        return low / high if high else 1.0

    @property
    def kernel_cycles(self) -> float:
        """Cycles after the launch overhead (each core's setup included, as the device profiler's kernel
        time includes it)."""
        return self.cycles - self.launch_cycles

    @property
    def program_cycles(self) -> float:
        """Cycles from the cores' first instruction to the last role's end: what a timer inside the
        kernel measures (the kernel time without the setup)."""
        return self.kernel_cycles - self.setup_cycles

    @property
    def us(self) -> float:
        """Simulated time in microseconds (launch overhead included)."""
        return self.cycles / (self.clock_ghz * 1000.0)

    @property
    def dram_read_bytes(self) -> float:
        """DRAM bytes read, all tensors."""
        return sum(self.dram_read_bytes_by_tensor.values())

    @property
    def dram_write_bytes(self) -> float:
        """DRAM bytes written, all tensors."""
        return sum(self.dram_write_bytes_by_tensor.values())

    def tflops(self, flops: float | None = None) -> float:
        """Achieved TFLOPS for `flops` floating-point operations (default: the program's count)."""
        flops = self.flops if flops is None else flops
        if not flops:
            raise ValueError(f"expected a FLOP count for program '{self.program}', found none")
        return flops / (self.us * 1e-6) / 1e12

    def write_trace(self, path: str | Path) -> Path:
        """Write a Chrome/Perfetto JSON trace (needs `simulate(..., trace=True)`)."""
        if self.trace is None:
            raise ValueError("expected a run with trace=True, found none recorded; "
                             "call simulate(..., trace=True) to record a trace")
        return self.trace.write(path)

    def summary(self) -> str:
        """A few lines for humans."""
        util = ", ".join(f"{k} {v:.0%}" for k, v in self.utilisation.items())
        lines = [f"{self.program} on {self.arch}: {self.cycles:,.0f} cycles = {self.us:,.1f} us"
                 + (f", {self.tflops():.1f} TFLOPS" if self.flops else ""),
                 f"  engines: {util}",
                 f"  DRAM: read {self.dram_read_bytes / 2**20:,.1f} MiB, "
                 f"write {self.dram_write_bytes / 2**20:,.1f} MiB;"
                 f" busiest bank {self.busiest_bank} {self.busiest_bank_utilisation:.0%}",
                 f"  busiest link {self.busiest_link} {self.busiest_link_utilisation:.0%};"
                 f" L1 {self.l1_bytes_per_core / 1024:,.0f} KiB per core"]
        if self.extrapolated:
            lines.append(f"  extrapolated: {self.note}")
        return "\n".join(lines)


def build_result(raw: RawStats, meta: dict[str, Any], fabric: Any) -> SimResult:
    """A `SimResult` from raw counters; `fabric` names resources."""
    kernel = max(raw.cycles - raw.launch - raw.setup, 1e-9)  # the time the programs run: the setup is no one's
    util = {k: (raw.active.get(k, 0.0) / (raw.roles[k] * kernel)) for k in ENGINES if raw.roles.get(k)}
    links = raw.busy[:fabric.bank_base]
    banks = raw.busy[fabric.bank_base:fabric.egress_base]
    li = int(np.argmax(links)) if len(links) else 0
    bi = int(np.argmax(banks)) if len(banks) else 0
    return SimResult(
        program=meta["program"], arch=meta["arch"], clock_ghz=meta["clock_ghz"], cycles=raw.cycles,
        launch_cycles=raw.launch, utilisation=util,
        dram_read_bytes_by_tensor=dict(raw.read_bytes), dram_write_bytes_by_tensor=dict(raw.write_bytes),
        dram_read_tiles_by_tensor=dict(raw.read_tiles), dram_write_tiles_by_tensor=dict(raw.write_tiles),
        busiest_link=fabric.link_name(li) if len(links) else "none",
        busiest_link_utilisation=float(links[li] / kernel) if len(links) else 0.0,
        busiest_bank=f"{bi} at {tuple(fabric.arch.dram.bank_positions[bi])}",
        busiest_bank_utilisation=float(banks[bi] / kernel) if len(banks) else 0.0,
        l1_bytes_per_core=meta["l1"], flops=meta.get("flops"), events=raw.events,
        compute_busy_range=_busy_range(raw.compute_busy), setup_cycles=raw.setup)


def _busy_range(per_core: np.ndarray) -> tuple[float, float]:
    working = per_core[per_core > 0]
    return (float(working.min()), float(working.max())) if len(working) else (0.0, 0.0)
