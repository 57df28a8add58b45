"""The simulator's clock: a heapq event queue driving every role of every core.

Each participating core runs up to three roles (reader, compute, writer) as independent
state machines over their structured instruction lists (a stack of loop frames). A role runs
instructions until one takes time (it is rescheduled at the end of that time) or cannot
proceed (it registers as a waiter on a CB or semaphore and is woken when that changes).
Transfers are reserved on the fabric when issued (noc.py) and complete at a known time;
functional data lands at that time, semaphore messages are delivered then.

When the queue empties while some role is unfinished, every unfinished role is blocked and
nothing is in flight: that is a deadlock, reported with each role's wait.

This module owns the clock; data movement (movement.py) and compute (compute.py) handlers are
mixed into `Simulator`.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from loom.arch import Arch
from loom.backend.program import (
    COMPUTE_OPS,
    CORE_VARS,
    ROLES,
    Barrier,
    CbPop,
    CbPush,
    CbReserve,
    CbWait,
    DramRead,
    DramWrite,
    Multicast,
    Program,
    ProgramError,
    RemoteRead,
    SemInc,
    SemSet,
    SemWait,
    Write,
)
from loom.backend.validate import check_program
from loom.mapping.engines import engine_noc
from loom.sim.data import from_tiles, quantize, to_tiles
from loom.sim.errors import DeadlockError, Wait
from loom.sim.movement import MovementMixin
from loom.sim.noc import Fabric, bank_counts
from loom.sim.operands import ComputeMixin
from loom.sim.report import RawStats
from loom.sim.tensix import Threads
from loom.sim.trace import TraceRecorder

BLOCK = object()
"""Handler result: the role is blocked and registered as a waiter."""


class CBState:
    """A circular buffer on one core: counters (TT-Metal semantics) and, if functional, tiles."""

    __slots__ = ("name", "cap", "block", "rows", "cols", "head", "pushed", "popped", "dtype", "data",
                 "wait_space", "wait_data")

    def __init__(self, decl: Any, data: np.ndarray | None):
        self.name, self.dtype = decl.name, decl.dtype
        self.cap, self.block, self.rows, self.cols = decl.capacity, decl.block_tiles, decl.rows, decl.cols
        self.head = self.pushed = self.popped = 0  # head: the producer's pushes; pushed: those visible
        self.data = data
        self.wait_space: list[Role] = []
        self.wait_data: list[Role] = []


class SemState:
    """A semaphore on one core."""

    __slots__ = ("name", "value", "waiters")

    def __init__(self, name: str, value: int):
        self.name, self.value = name, value
        self.waiters: list[Role] = []


class CoreState:
    """One participating core: its buffers, semaphores and roles."""

    __slots__ = ("coord", "index", "node", "group", "cbs", "bufs", "buf_dtypes", "sems")

    def __init__(self, coord: tuple[int, ...], index: int, node: int, group: Any):
        self.coord, self.index, self.node, self.group = coord, index, node, group
        self.cbs: dict[str, CBState] = {}
        self.bufs: dict[str, np.ndarray | None] = {}
        self.buf_dtypes: dict[str, str] = {}
        self.sems: dict[str, SemState] = {}


class Role:
    """One engine of one core executing its instruction list."""

    __slots__ = ("core", "kind", "thread", "stack", "env", "done", "blocked", "block_since", "blocked_cycles",
                 "busy", "reads_out", "writes_out", "peer_out", "end", "noc", "threads")

    def __init__(self, core: CoreState, kind: str, body: tuple, env: dict[str, int], noc: int, start: float):
        self.core, self.kind, self.thread = core, kind, ROLES.index(kind)
        self.stack: list[list[Any]] = [[body, 0, None, 1, 0]]
        self.env = env
        self.done = False
        self.blocked: tuple | None = None
        self.block_since: float | None = None
        self.blocked_cycles = 0.0
        self.busy = 0.0
        self.reads_out = 0.0  # when every read issued so far (DRAM or another core's L1) has landed
        self.writes_out = 0.0  # ... every write (DRAM, another core's L1, multicast)
        self.peer_out = 0.0  # ... every write into other cores (semaphore messages land after these)
        self.end = 0.0
        self.noc = noc
        self.threads = Threads(start) if kind == "compute" else None  # the Tensix's unpack / math / pack

    @property
    def outstanding(self) -> float:
        """When every transfer issued so far has landed (for compute: when the packer is done)."""
        if self.threads is not None:
            return self.threads.pack
        return max(self.reads_out, self.writes_out)


class TensorState:
    """A DRAM-interleaved global tensor: tile geometry and (functional mode) its tiles."""

    __slots__ = ("name", "shape", "dtype", "lead", "rows", "cols", "ntiles", "dram_tile_bytes", "tile_bytes",
                 "data", "valid_lead", "valid_rows", "valid_cols")

    def __init__(self, t: Any, arch: Arch):
        tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
        self.name, self.shape, self.dtype = t.name, tuple(t.shape), t.dtype
        self.lead = tuple(t.shape[:-2])
        self.rows, self.cols = t.shape[-2] // tr, t.shape[-1] // tc
        self.ntiles = int(np.prod(self.lead, dtype=np.int64)) * self.rows * self.cols
        self.tile_bytes = arch.dtypes.tile_bytes[t.dtype]
        align = arch.dtypes.dram_alignment_bytes
        self.dram_tile_bytes = -(-self.tile_bytes // align) * align
        if getattr(t, "vector", None) == "row":  # a rank-1 tensor held as a 1 x n row: DRAM holds only that row,
            # read as one stick of a tile's width per tile (TTNN's norms read gamma / beta as such sticks)
            self.dram_tile_bytes = -(-(self.tile_bytes // tr) // align) * align
        self.data: np.ndarray | None = None
        valid = tuple(t.valid) if getattr(t, "valid", None) else self.shape
        self.valid_lead = valid[:-2]
        self.valid_rows, self.valid_cols = -(-valid[-2] // tr), -(-valid[-1] // tc)

    def start(self, idx: list[int], rows: int, cols: int, what: str) -> int:
        """Tile id of the block's first tile; raises if the block leaves the tensor."""
        *lead, r, c = idx
        if (any(not 0 <= i < n for i, n in zip(lead, self.lead)) or r < 0 or c < 0
                or r + rows > self.rows or c + cols > self.cols):
            extent = (*self.lead, self.rows, self.cols)
            raise ProgramError(f"{what}: expected a {rows}x{cols} tile block inside tensor '{self.name}' "
                               f"(tiles {extent}), found one at tile index {tuple(idx)}")
        base = 0
        for i, n in zip(lead, self.lead):
            base = base * n + i
        return (base * self.rows + r) * self.cols + c

    def inside(self, idx: list[int], rows: int, cols: int) -> tuple[list[int], int, int, tuple[int, int]]:
        """The part of a block inside the tensor's tile rows and columns (`DramRead.clip`): its index, rows
        and columns (0 when none), and where it starts in the block."""
        *lead, r, c = idx
        r0, c0 = max(r, 0), max(c, 0)
        r1, c1 = min(r + rows, self.rows), min(c + cols, self.cols)
        return [*lead, r0, c0], max(r1 - r0, 0), max(c1 - c0, 0), (r0 - r, c0 - c)

    def moved(self, idx: list[int], rows: int, cols: int, banks: int) -> tuple[int, tuple[tuple[int, int], ...]]:
        """The tiles of a block that hold data (all of them unless the tensor has a `valid` extent)
        and how many of them each DRAM bank serves, laid out as the valid tensor is interleaved."""
        *lead, r, c = idx
        rows, cols = min(rows, self.valid_rows - r), min(cols, self.valid_cols - c)
        if rows <= 0 or cols <= 0 or any(i >= n for i, n in zip(lead, self.valid_lead)):
            return 0, ()
        base = 0
        for i, n in zip(lead, self.valid_lead):
            base = base * n + i
        first = (base * self.valid_rows + r) * self.valid_cols + c
        return rows * cols, bank_counts(first % banks, rows, cols, self.valid_cols % banks, banks)

    def block_ids(self, start: int, rows: int, cols: int) -> np.ndarray:
        """Tile ids of a block, row-major."""
        return (start + np.arange(rows)[:, None] * self.cols + np.arange(cols)[None, :]).reshape(-1)


class Simulator(MovementMixin, ComputeMixin):
    """Runs one `Program` on one `Arch`; `run()` returns the raw counters."""

    def __init__(self, program: Program, arch: Arch, functional: bool = False,
                 inputs: Mapping[str, Any] | None = None, trace: bool = False):
        check_program(program, arch)
        self.program, self.arch, self.functional = program, arch, functional
        self.fabric = Fabric(arch)
        self.now = 0.0
        self.queue: list[tuple[float, int, Any, Any]] = []
        self.seq = 0
        self.nevents = 0
        self.launch = float(arch.launch_overhead_cycles)
        self.setup = float(arch.kernel_setup_cycles)  # each core's fixed start-up: its programs begin after it
        self.issue = float(arch.noc.transfer_issue_cycles)
        self.tile = (arch.tiling.tile_rows, arch.tiling.tile_cols)
        self.tensors = {t.name: TensorState(t, arch) for t in program.tensors}
        self.read_bytes = dict.fromkeys(self.tensors, 0.0)
        self.write_bytes = dict.fromkeys(self.tensors, 0.0)
        self.read_tiles = dict.fromkeys(self.tensors, 0.0)
        self.write_tiles = dict.fromkeys(self.tensors, 0.0)
        if functional:
            self._load_inputs(inputs or {})
        self.cores: dict[tuple[int, ...], CoreState] = {}
        self.roles: list[Role] = []
        self.compute_cache: dict[tuple, Any] = {}
        ndims = len(arch.grid.dims)
        for group in program.groups:
            for coord in group.cores:
                core = CoreState(coord, len(self.cores), self.fabric.node(coord), group)
                self.cores[coord] = core
                self._init_core(core, group)
                env0 = dict(zip(CORE_VARS[:ndims], coord))
                for kind in ROLES:
                    body = group.role(kind)
                    if body:
                        chosen = (program.engine_nocs or {}).get(kind)
                        noc = engine_noc(kind, self.fabric.nocs) if chosen is None or self.fabric.nocs < 2 else chosen
                        role = Role(core, kind, body, dict(env0), noc, self.launch + self.setup)
                        self.roles.append(role)
                        self.schedule(self.launch + self.setup, self._step, role)
        self.tracer = TraceRecorder(arch.clock_ghz, list(self.cores)) if trace else None
        self.handlers = {CbReserve: self._cb_reserve, CbPush: self._cb_push, CbWait: self._cb_wait,
                         CbPop: self._cb_pop, SemWait: self._sem_wait, SemSet: self._sem_set,
                         SemInc: self._sem_inc, Barrier: self._barrier, DramRead: self._dram_read,
                         DramWrite: self._dram_write, Write: self._write, Multicast: self._multicast,
                         RemoteRead: self._remote_read}
        for op in COMPUTE_OPS:
            self.handlers[op] = self._compute

    def _init_core(self, core: CoreState, group: Any) -> None:
        tile = self.tile
        for decl in group.cbs:
            data = np.zeros((decl.capacity, *tile), np.float32) if self.functional else None
            core.cbs[decl.name] = CBState(decl, data)
        for b in group.buffers:
            core.bufs[b.name] = np.zeros((b.rows * b.cols, *tile), np.float32) if self.functional else None
            core.buf_dtypes[b.name] = b.dtype
        for s in group.semaphores:
            core.sems[s.name] = SemState(s.name, s.initial)

    def _load_inputs(self, inputs: Mapping[str, Any]) -> None:
        for name, t in self.tensors.items():
            if name in inputs:
                x = inputs[name]
                is_torch = hasattr(x, "numpy") and hasattr(x, "float")
                x = x.float().numpy() if is_torch else np.asarray(x, np.float32)
                if tuple(x.shape) != t.shape:
                    raise ProgramError(f"input '{name}': expected shape {t.shape}, found {tuple(x.shape)}")
                t.data = to_tiles(quantize(x, t.dtype), *self.tile)
            else:
                t.data = np.zeros((t.ntiles, *self.tile), np.float32)
        unknown = set(inputs) - set(self.tensors)
        if unknown:
            raise ProgramError(f"expected inputs named after tensors ({', '.join(self.tensors)}), "
                               f"found {', '.join(sorted(unknown))}")

    # --- clock ----------------------------------------------------------------------------------

    def schedule(self, t: float, fn: Any, arg: Any) -> None:
        """Call `fn(arg)` at time `t`."""
        self.seq += 1
        heapq.heappush(self.queue, (t, self.seq, fn, arg))

    def run(self) -> RawStats:
        """Simulate until every role finishes; raises `DeadlockError` if they cannot."""
        queue, pop = self.queue, heapq.heappop
        n = 0
        while queue:
            t, _, fn, arg = pop(queue)
            self.now = t
            fn(arg)
            n += 1
        self.nevents = n
        unfinished = [r for r in self.roles if not r.done]
        if unfinished:
            raise DeadlockError(self.program.name, self.now, [self._describe(r) for r in unfinished],
                                len(self.roles) - len(unfinished))
        return self.stats()

    def _step(self, role: Role) -> None:
        """Run `role` until it blocks, takes time, or finishes."""
        if role.block_since is not None:
            role.blocked_cycles += self.now - role.block_since
            if self.tracer and self.now > role.block_since:
                self.tracer.slice(role.core.index, role.thread, "wait", role.block_since, self.now, "wait")
            role.block_since = None
        stack, env, handlers = role.stack, role.env, self.handlers
        while stack:
            frame = stack[-1]
            body, pc = frame[0], frame[1]
            if pc >= len(body):
                if frame[2] is not None:
                    frame[4] += 1
                    if frame[4] < frame[3]:
                        env[frame[2]] = frame[4]
                        frame[1] = 0
                        continue
                    del env[frame[2]]
                stack.pop()
                if stack:
                    stack[-1][1] += 1
                continue
            ins = body[pc]
            handler = handlers.get(type(ins))
            if handler is None:  # a Loop
                count = ins.count if isinstance(ins.count, int) else ins.count.eval(env)
                if count > 0:
                    env[ins.var] = 0
                    stack.append([ins.body, 0, ins.var, count, 0])
                else:
                    frame[1] += 1
                continue
            result = handler(role, ins)
            if result is None:
                frame[1] += 1
                continue
            if result is BLOCK:
                role.block_since = self.now
                return
            frame[1] += 1
            if result > self.now:
                self.schedule(result, self._step, role)
                return
        role.done = True
        role.end = max(self.now, role.outstanding)  # a kernel ends when its transfers have landed

    def wake(self, waiters: list[Role]) -> None:
        """Resume every role in `waiters` now (each re-checks its condition)."""
        for role in waiters:
            role.blocked = None
            self.schedule(self.now, self._step, role)
        waiters.clear()

    # --- circular buffers and semaphores ----------------------------------------------------

    def _cb_reserve(self, role: Role, ins: CbReserve) -> Any:
        cb = role.core.cbs[ins.cb]
        n = ins.tiles or cb.block
        if cb.cap - (cb.head - cb.popped) >= n:
            return None
        cb.wait_space.append(role)
        role.blocked = ("CB", cb, n, "space")
        return BLOCK

    def _cb_push(self, role: Role, ins: CbPush) -> Any:
        cb = role.core.cbs[ins.cb]
        n = ins.tiles or cb.block
        cb.head += n
        if cb.head - cb.popped > cb.cap:
            raise ProgramError(f"core {role.core.coord} {role.kind}: CbPush on CB '{cb.name}' makes "
                               f"{cb.head - cb.popped} tiles visible, expected at most its capacity "
                               f"{cb.cap} (missing CbReserve?)")
        if role.threads is not None and role.threads.pack > self.now:  # visible once the packer is done
            self.schedule(role.threads.pack, self._show, (cb, n))
        else:
            self._show((cb, n))
        return None

    def _show(self, arg: tuple[CBState, int]) -> None:
        cb, n = arg
        cb.pushed += n
        if cb.wait_data:
            self.wake(cb.wait_data)

    def _cb_wait(self, role: Role, ins: CbWait) -> Any:
        cb = role.core.cbs[ins.cb]
        n = ins.tiles or cb.block
        if not isinstance(n, int):  # a growing prefix of a kept row
            n = n.eval(role.env)
        if cb.pushed - cb.popped >= n:
            return None
        cb.wait_data.append(role)
        role.blocked = ("CB", cb, n, "data")
        return BLOCK

    def _cb_pop(self, role: Role, ins: CbPop) -> Any:
        cb = role.core.cbs[ins.cb]
        n = ins.tiles or cb.block
        if cb.pushed - cb.popped < n:
            raise ProgramError(f"core {role.core.coord} {role.kind}: CbPop of {n} tiles on CB '{cb.name}', "
                               f"expected at most the {cb.pushed - cb.popped} visible tiles "
                               f"(missing CbWait?)")
        cb.popped += n
        if cb.wait_space:
            self.wake(cb.wait_space)
        return None

    def _sem_wait(self, role: Role, ins: SemWait) -> Any:
        sem = role.core.sems[ins.sem]
        if sem.value == ins.value or (ins.cmp == "ge" and sem.value >= ins.value):
            return None
        sem.waiters.append(role)
        role.blocked = ("semaphore", sem, ins.value, ins.cmp)
        return BLOCK

    def sem_update(self, arg: tuple[SemState, int, bool]) -> None:
        """Apply a semaphore set (`add` False) or increment; wake its waiters."""
        sem, value, add = arg
        sem.value = sem.value + value if add else value
        if sem.waiters:
            self.wake(sem.waiters)

    def _barrier(self, role: Role, ins: Barrier) -> Any:
        until = role.reads_out if ins.kind == "reads" else role.writes_out if ins.kind == "writes" else role.outstanding
        return until if until > self.now else None

    # --- results ------------------------------------------------------------------------------

    def _describe(self, role: Role) -> Wait:
        kind, obj, wanted, how = role.blocked or ("?", None, 0, "")
        core = role.core.coord
        if kind == "CB":
            if how == "space":
                free = obj.cap - (obj.head - obj.popped)
                return Wait(core, role.kind, "CB", obj.name, f"{wanted} free tiles (CbReserve)",
                            f"{free} free of {obj.cap}")
            return Wait(core, role.kind, "CB", obj.name, f"{wanted} visible tiles (CbWait)",
                        f"{obj.pushed - obj.popped} visible")
        if kind == "semaphore":
            op = "==" if how == "eq" else ">="
            return Wait(core, role.kind, "semaphore", obj.name, f"value {op} {wanted}", f"value {obj.value}")
        return Wait(core, role.kind, "?", "?", "?", "unknown")

    def stats(self) -> RawStats:
        """Counters of the finished run."""
        cycles = max([r.end for r in self.roles] + [self.launch])
        active = dict.fromkeys(ROLES, 0.0)
        count = dict.fromkeys(ROLES, 0)
        for r in self.roles:
            count[r.kind] += 1
            if r.kind == "compute":
                active[r.kind] += r.busy
            else:
                active[r.kind] += (r.end - self.launch - self.setup) - r.blocked_cycles
        compute_busy = np.array([r.busy for r in self.roles if r.kind == "compute"], dtype=float)
        return RawStats(cycles, self.launch, active, count, dict(self.read_bytes), dict(self.write_bytes),
                        dict(self.read_tiles), dict(self.write_tiles),
                        np.array(self.fabric.busy[:self.fabric.stream_base]), self.nevents, compute_busy,
                        self.setup)

    def outputs(self) -> dict[str, np.ndarray]:
        """Functional mode: every output and scratch tensor as a float32 array of its shape."""
        return {name: from_tiles(t.data, t.shape) for name, t in self.tensors.items()
                if t.data is not None and self._kind(name) != "input"}

    def _kind(self, name: str) -> str:
        return next(t.kind for t in self.program.tensors if t.name == name)


def run_program(program: Program, arch: Arch, functional: bool, inputs: Mapping[str, Any] | None,
                trace: bool) -> tuple[RawStats, Simulator, float]:
    """Build, run, and time one simulation."""
    start = time.perf_counter()
    sim = Simulator(program, arch, functional, inputs, trace)
    raw = sim.run()
    return raw, sim, time.perf_counter() - start
