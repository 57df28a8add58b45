"""The simulator's state: DRAM tensors, and per core its circular buffers, semaphores and roles.

Plain records that the clock (engine.py) and the instruction handlers (movement.py, operands.py)
share; they hold counters and data and know nothing of time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from loom.arch import Arch
from loom.backend.program import ROLES, ProgramError
from loom.sim.noc import bank_counts


class CBState:
    """A circular buffer on one core: counters (TT-Metal semantics) and, if functional, tiles."""

    __slots__ = ("name", "cap", "block", "rows", "cols", "pushed", "popped", "dtype", "data",
                 "wait_space", "wait_data")

    def __init__(self, decl: Any, data: np.ndarray | None):
        self.name, self.dtype = decl.name, decl.dtype
        self.cap, self.block, self.rows, self.cols = decl.capacity, decl.block_tiles, decl.rows, decl.cols
        self.pushed = self.popped = 0
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
                 "busy", "reads_out", "writes_out", "peer_out", "end", "noc")

    def __init__(self, core: CoreState, kind: str, body: tuple, env: dict[str, int], noc: int):
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

    @property
    def outstanding(self) -> float:
        """When every transfer issued so far has landed."""
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
