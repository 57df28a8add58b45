"""Split a selected schedule into per-core reader / compute / writer programs (`loom.backend.program`).

Input: the concretized (stage 3) IR, the chosen candidate, its block sizes and pipeline knobs.
Each core of the candidate's view gets its three roles, each the loop nest of the IR filtered to
what that role does:
- a buffer filled by a DRAM copy and read by compute, or written by compute and drained by a DRAM
  copy, is a circular buffer between two roles (one slot, two when the pipe that fills or drains
  it overlaps its transfer); `reserve/commit` become `CbReserve/CbPush`, `acquire/release` become
  `CbWait/CbPop`. A buffer only compute touches is a local L1 buffer; buffers that stage 3 gave
  one storage slot share it.
- DRAM loads of a pipe stage alternate between the reader and the writer (`loom.mapping.engines`), stores
  go to the writer, linalg ops to compute (`compute_instructions.py`). Loads wait for their reads
  only; a store whose buffer has two slots is not waited for at once (`deferred_stores.py`), and the
  writer issues its next loads before it waits for the block to store (`prefetched_loads.py`).
- Cores sharing a multicast along an axis run in lockstep: each runs the busiest core's blocks of
  that axis, past its last tile on padding; a tensor is padded to every block that touches it
  (and to whole tiles), and moves only its real tiles (`Tensor.valid`).
- A multicast load is read by the group's first core, which waits until every receiver has
  reserved its slot (`SemInc` on the sender), multicasts the block and then sets the receivers'
  `valid` semaphore; receivers wait for it (TT-Metalium's sender/receiver handshake).
- A load the schedule keeps in L1 across the innermost temporal loop (a hoist knob) is read only
  once per iteration of the loops outside it: its CB holds every block of the device loop
  (`slots` = the loop's trips), the loads move out of the temporal loop, and compute waits for
  the whole panel before that loop, reads block `i` of it in iteration `i` of the device loop,
  and frees it after. A row several passes read alike, kept in L1 (a keep knob), is read once into a CB
  of the row's blocks; the first pass waits for block `i` in iteration `i` (a growing prefix: it computes
  while the rest arrives), every pass reads block `i` of it (`kept_rows.py`).
- A reduction split runs each core's chunk of the split loop; after it the senders ship their
  partial states to the group's root (`loom.backend.combine`), and only the root runs the rest of
  the tile body (the epilogue and its stores).
Every core is its own `CoreGroup` with constant coordinates, so each core's loop counts and
indices are plain integers and affine loop expressions.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from math import prod
from pathlib import Path

from xdsl.dialects import affine, arith, func, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp
from xdsl.dialects.linalg.ops import CopyOp as LinalgCopyOp
from xdsl.dialects.linalg.ops import FillOp, GenericOp, MatmulOp, TransposeOp
from xdsl.ir import Block, Operation, SSAValue

from loom.arch import Arch
from loom.arch.routes import shared_links
from loom.backend import program as P
from loom.backend.combine import READY, VALID, State, combine_code
from loom.backend.compute_instructions import compute_instruction
from loom.backend.deferred_stores import defer_store_pops
from loom.backend.dram_reads import block_reads, clipped, inside_span, leading_blocks
from loom.backend.kept_rows import kept_rows
from loom.backend.live_tiles import restrict_to_live_tiles
from loom.backend.padding import padded_shape, whole_tiles
from loom.backend.prefetched_loads import prefetch_loads
from loom.backend.shared_blocks import forward, group_rect
from loom.errors import SourceLocation, UnsupportedError
from loom.ir.dialect import CopyOp, SymOp, VbAcquireOp, VbBindOp, VbCommitOp, VbReleaseOp, VbReserveOp
from loom.ir.loops import until_bounds
from loom.ir.types import dtype_name, enclosing_in
from loom.mapping.candidates import Candidate
from loom.mapping.engines import Read, engine_noc, load_engines, read_noc, reading_group, spread_reads, store_noc
from loom.mapping.reduction import split_loop_op
from loom.model.heg import Knob, double_buffered, live_knob, load_buffer


@dataclass
class _Buf:
    """How one virtual buffer is realised: a CB between two roles or a local compute buffer."""

    name: str
    kind: str  # "cb" or "local"
    producer: str  # role that writes it
    consumer: str  # role that reads it
    rows: int
    cols: int
    dtype: str
    slots: int = 1


@dataclass
class _Roles:
    reader: list = field(default_factory=list)
    compute: list = field(default_factory=list)
    writer: list = field(default_factory=list)
    hoist_reader: list = field(default_factory=list)  # loads moved out of the innermost temporal loop
    hoist_writer: list = field(default_factory=list)
    panel_reader: list = field(default_factory=list)  # a kept row's loads, before its first pass
    panel_writer: list = field(default_factory=list)

    def get(self, role: str) -> list:
        return getattr(self, role)


_ROLE_LISTS = ("reader", "compute", "writer", "hoist_reader", "hoist_writer")


def _double_buffered_cb(buf: _Buf) -> bool:
    """A CB of two slots or more: its stores are waited for later, its loads issued a block ahead."""
    return buf.kind == "cb" and buf.slots >= 2


def _tiles(extent: int, tile: int) -> int:
    return -(-extent // tile)


class ProgramBuilder:
    """Builds the `Program` of one schedule."""

    def __init__(self, concrete: ModuleOp, candidate: Candidate, block_sizes: dict[str, int],
                 knobs: dict[str, int], declared: list[Knob], arch: Arch):
        self.module, self.candidate, self.arch = concrete, candidate, arch
        self.sizes = block_sizes
        self.tile = (arch.tiling.tile_rows, arch.tiling.tile_cols)
        (self.grid,) = [op for op in concrete.walk() if isinstance(op, affine.ParallelOp)]
        self.axes = [a.data for a in self.grid.attributes["loom.grid"].data]
        self.copies = [op for op in self.grid.walk() if isinstance(op, CopyOp)]
        self.transfer_of = dict(zip(self.copies, candidate.transfers))
        self.fn = next(op for op in concrete.walk() if isinstance(op, func.FuncOp))
        self.outputs = {a.data for a in self.fn.attributes["loom.outputs"].data}
        self.spread = {b for k in declared if k.kind == "spread" and knobs.get(k.name) for b in k.buffers}
        self.engine_of = self._load_engines()
        doubled = double_buffered(declared, knobs)
        self.kept = {}  # buffer label -> (device loop variable, its trips) for panels kept in L1
        for hoist in [k.hoist for k in declared if k.hoist is not None]:
            if knobs.get(hoist.knob):
                block = hoist.block if isinstance(hoist.block, int) else block_sizes[hoist.block]
                self.kept.update({b: (hoist.loop, _tiles(hoist.extent, block)) for b in hoist.buffers})
        self.rows = kept_rows(self.grid, self.outputs, declared, knobs, block_sizes)
        self.buffers = self._classify(doubled)
        # axes whose cores share a multicast run in lockstep: each core runs the busiest one's blocks,
        # past the last tile on padding (`padding.padded_shape` pads the tensors to them)
        shared = {axis for t in candidate.transfers if t.receivers > 1 for axis in t.access.spatial}
        self.lockstep = {a.axis for a in candidate.axes if a.axis in shared and a.block is not None}
        # loops to a tile's end whose cores run block pairs from both ends (the `balance_` knobs)
        self.balanced = {a.axis for a in candidate.axes if knobs.get(f"balance_{a.axis}")}
        self.live = lambda loop: bool(knobs.get(live_knob(loop)))  # loops whose score ops run on live tiles
        self.split = candidate.split
        self.split_loop = split_loop_op(self.grid, self.split) if self.split else None
        self.epilogue_buffers = self._epilogue_buffers() if self.split else set()
        self.skip_epilogue = False  # set while a split's sender walks the ops after the split loop

    def _load_engines(self) -> dict[CopyOp, str]:
        """Loads alternate between the engines (`load_engines`; a tensor the kernel also stores, read back, goes
        to the writer, behind its stores), each on the NoC that carries most to its readers (`read_noc`),
        stores on `store_noc`. A pipe stage whose `spread` knob is on spreads its reads over both NoCs
        (`spread_reads`, around its stores; into `self.parts_elsewhere`)."""
        engines, self.parts_elsewhere, self.read_noc = {}, {}, {}
        nocs, used = self.arch.noc.count, self.candidate.view.occupancy
        writer = store_noc(self.arch, used)
        self.store_noc = None if writer == engine_noc("writer", nocs) else writer  # None: the writer's own
        for block_op in [self.grid] + [op for op in self.grid.walk() if isinstance(op, scf.ForOp)]:
            copies = [op for op in block_op.regions[0].block.ops if isinstance(op, CopyOp)]
            loads = [op for op in copies if op.src_space.data == "DRAM"]
            engines.update(zip(loads, load_engines([inside_span(load.source) for load in loads],
                                                   [self._reads_back(load) for load in loads])))
            self.read_noc.update({op: read_noc(self.arch, used, reading_group(self.transfer_of[op])) for op in loads})
            if loads and all(load_buffer(load) in self.spread for load in loads):
                every = tuple(sorted({reading_group(self.transfer_of[load]) for load in loads}))
                links = tuple(shared_links(self.arch, n, used, every) for n in range(nocs))
                reads = [self._read(load, self.read_noc[load]) for load in loads]
                stored = sum(self._block_bytes(op.dest)[2] for op in copies if op.src_space.data == "L1")
                writes = tuple(stored if n == writer else 0.0 for n in range(nocs))
                self.parts_elsewhere.update(zip(loads, spread_reads(reads, links, writes)))
        return engines

    def _block_bytes(self, view: SSAValue) -> tuple[int, int, int]:
        """(tile rows, tile columns, bytes) of a block of a global tensor (a load's source, a store's target)."""
        rows, cols = self._block_tiles(view)
        blocks = prod(self._extents(view.owner)[:-2])
        return rows, cols, blocks * rows * cols * self.arch.dtypes.tile_bytes[dtype_name(view.type.element_type)]

    def _block_tiles(self, view: SSAValue) -> tuple[int, int]:
        """(tile rows, tile columns) of one 2-D block of a global subview."""
        *_, rows, cols = self._extents(view.owner)
        return _tiles(rows, self.tile[0]), _tiles(cols, self.tile[1])

    def _read(self, load: CopyOp, noc: int) -> Read:
        """A load as `spread_reads` sees it: its NoC, its bytes over every reading core, its parts (tile rows;
        tiles of a one-row block)."""
        rows, cols, nbytes = self._block_bytes(load.source)
        return Read(noc, nbytes / self.transfer_of[load].receivers, rows if rows > 1 else cols)

    def _reads_back(self, load: CopyOp) -> bool:
        """A load of one of the kernel's outputs: a block this core stored earlier."""
        source = load.source.owner.source if isinstance(load.source.owner, memref.SubviewOp) else load.source
        return source.name_hint in self.outputs

    # ------------------------------------------------------------------ buffers
    def _dims(self, value: SSAValue) -> tuple[int, ...]:
        bind = value.owner
        sizes = iter(bind.memory.owner.sizes)
        dims = []
        for extent in value.type.get_shape():
            if extent >= 0:
                dims.append(extent)
            else:
                dims.append(self.sizes[next(sizes).owner.label])
        return tuple(dims)

    def _classify(self, doubled: set[str]) -> dict[SSAValue, _Buf]:
        buffers = {}
        for bind in [op for op in self.grid.body.block.ops if isinstance(op, VbBindOp)]:
            producers, consumers = set(), set()
            for use in bind.buffer.uses:
                side = use.operation
                if isinstance(side, (VbReserveOp, VbAcquireOp)):
                    for view_use in side.view.uses:
                        user = view_use.operation
                        if isinstance(user, CopyOp):
                            role = self.engine_of[user] if user.src_space.data == "DRAM" else "writer"
                        else:
                            role = "compute"
                        (producers if isinstance(side, VbReserveOp) else consumers).add(role)
            if len(producers) > 1 or len(consumers) > 1:
                raise UnsupportedError(f"buffer '{bind.label.data}' is filled by {sorted(producers)} and drained "
                                       f"by {sorted(consumers)}; one engine each is supported")
            producer = next(iter(producers), "compute")
            consumer = next(iter(consumers), "compute")
            dims = self._dims(bind.buffer)
            if len(dims) == 1:
                rows, cols = _tiles(dims[0], self.tile[0]), 1
            else:
                rows, cols = prod(dims[:-2]) * _tiles(dims[-2], self.tile[0]), _tiles(dims[-1], self.tile[1])
            dtype = dtype_name(bind.buffer.type.element_type)
            local = producer == "compute" and consumer == "compute"
            name = f"mem{bind.memory.owner.slot.value.data}" if local else bind.label.data
            slots = 2 if bind.label.data in doubled and not local else 1
            if bind.label.data in self.kept:
                slots = self.kept[bind.label.data][1]
            if bind.label.data in self.rows.panels:
                slots = self.rows.panels[bind.label.data].slots
            buffers[bind.buffer] = _Buf(name, "local" if local else "cb", producer, consumer, rows, cols, dtype, slots)
        return buffers

    def _epilogue_buffers(self) -> set[SSAValue]:
        """Buffers first written after the split loop: only the root core runs them."""
        body = self.grid.body.block
        after = {op for op in body.ops if body.get_operation_index(op) > body.get_operation_index(self.split_loop)}
        out = set()
        for buffer in self.buffers:
            reserves = [u.operation for u in buffer.uses if isinstance(u.operation, VbReserveOp)]
            if reserves and all(enclosing_in(r, body) in after for r in reserves):
                out.add(buffer)
        return out

    def _states(self) -> list[State]:
        binds = {op.label.data: op for op in self.grid.body.block.ops if isinstance(op, VbBindOp)}
        states = []
        for label, role in self.split.loop.states:
            buf = self.buffers[binds[label].buffer]
            if buf.kind != "local":
                raise UnsupportedError(f"the partial state '{label}' of the split loop {self.split.loop.name} is a "
                                       f"circular buffer between {buf.producer} and {buf.consumer}, not a compute "
                                       "buffer")
            states.append(State(label, role, buf.name, buf.rows, buf.cols, buf.dtype))
        return states

    def _read_here(self, name: str) -> bool:
        """Whether a buffer is filled at all: a later pass's load buffer is not (it reads the kept row)."""
        return name not in self.rows.reads or name in self.rows.panels

    def _panel_block(self, name: str) -> int:
        """Tiles of one block of a kept row (the row holds `Panel.trips` of them)."""
        return next(b.rows * b.cols for b in self.buffers.values() if b.name == name)

    def _buf_of_view(self, view: SSAValue) -> _Buf:
        owner = view.owner
        return self.buffers[owner.buffer]

    # ------------------------------------------------------------------- cores
    def cores(self) -> list[tuple[tuple[int, ...], dict[str, int]]]:
        """Each core's physical coordinate and its index along every grid axis."""
        levels = self.candidate.view.levels
        dims = len(self.arch.grid.dims)
        per_dim = []
        for d in range(dims):
            factors = levels[d] if d < len(levels) else ()
            per_dim.append([f for f in factors] or [1])
        out = []
        for coord in itertools.product(*[range(prod(f)) for f in per_dim]):
            level_coord = {}
            for d, c in enumerate(coord):
                factors = per_dim[d]
                rest = c
                for level in range(len(factors) - 1, -1, -1):
                    level_coord[(d, level)] = rest % factors[level]
                    rest //= factors[level]
            index = {}
            for axis in self.candidate.axes:
                core = 0
                for d, level, size in axis.levels:
                    core = core * size + level_coord[(d, level)]
                index[axis.axis] = core
            if self.split:
                index[self.split.loop.name] = self.split.rank(level_coord)
            out.append((tuple(coord), index))
        return out

    def trips(self, axis_name: str) -> tuple[int, int]:
        """(tiles along the axis, temporal trips per core)."""
        axis = self.candidate.axis(axis_name)
        block = self.sizes[axis.block] if axis.block else axis.fixed_block
        tiles = _tiles(axis.extent, block)
        return tiles, _tiles(tiles, axis.spatial)

    # ----------------------------------------------------------------- program
    def build(self) -> P.Program:
        fn, outputs = self.fn, self.outputs
        attributes = {k: v.data for k, v in fn.attributes.items() if k in ("loom.vectors", "loom.layouts")}
        vectors = {k: v.data for k, v in attributes.get("loom.vectors", {}).items()}
        layouts = {k: tuple(v.get_values()) for k, v in attributes.get("loom.layouts", {}).items()}
        tensors = []
        for arg in fn.body.block.args:
            shape = list(arg.type.get_shape())
            if len(shape) < 2:
                first_access = next((use.operation for use in arg.uses), None)
                raise _located(UnsupportedError(
                    f"tensor '{arg.name_hint}' has rank {len(shape)}; the per-core backends lay global tensors "
                    "out in 32x32 tiles and need rank 2 or more (give it a leading dimension of 1)"),
                    first_access, self.module)
            padded = self._padded(arg, shape)
            past_tiles = padded != (*shape[:-2], *whole_tiles(shape, self.tile))  # some block reaches past the tiles
            tensors.append(P.Tensor(arg.name_hint, padded, dtype_name(arg.type.element_type),
                                    "output" if arg.name_hint in outputs else "input",
                                    valid=tuple(shape) if past_tiles else None, vector=vectors.get(arg.name_hint),
                                    order=layouts.get(arg.name_hint)))
        cbs = {b.name: P.CB(b.name, b.dtype, b.rows, b.cols, b.slots) for b in self.buffers.values()
               if b.kind == "cb" and self._read_here(b.name)}
        locals_ = {b.name: P.Buffer(b.name, b.dtype, b.rows, b.cols) for b in self.buffers.values()
                   if b.kind == "local"}
        sems = [P.Semaphore(f"{self.buffers[c.dest.owner.buffer].name}_{s}")  # the copy's reserved buffer
                for c, t in self.transfer_of.items() if t.receivers > 1 for s in ("ready", "valid")]
        if self.split:
            sems += [P.Semaphore(READY), P.Semaphore(VALID)]
        deferred = {b.name for b in self.buffers.values() if b.consumer == "writer" and _double_buffered_cb(b)}
        prefetched = {b.name for b in self.buffers.values() if b.producer == "writer" and _double_buffered_cb(b)}
        groups = []
        for coord, index in self.cores():
            roles, extra_cbs, extra_locals = self.core_roles(coord, index)
            writer = defer_store_pops(prefetch_loads(list(roles.writer), prefetched), deferred)
            buffers = tuple(locals_.values()) + extra_locals
            groups.append(P.CoreGroup((coord,), tuple(cbs.values()) + extra_cbs, buffers, tuple(sems),
                                      tuple(roles.reader), restrict_to_live_tiles(roles.compute, buffers, self.live),
                                      tuple(writer), name=f"core {coord}"))
        return P.Program(self.arch.name, tuple(tensors), tuple(groups), name=self.candidate.name)

    def _padded(self, arg: SSAValue, shape: list[int]) -> tuple[int, ...]:
        """`padding.padded_shape`: every core of a lockstep axis runs the busiest one's blocks."""
        lockstep = {a.block: a for a in self.candidate.axes if a.axis in self.lockstep and a.block}
        within = {op.ub.owner.rhs.owner.label: op.attributes["loom.within"].data for op in self.grid.walk()
                  if isinstance(op, scf.ForOp) and "loom.within" in op.attributes
                  and isinstance(op.ub.owner.rhs.owner, SymOp)}

        def blocks(label: str) -> int | None:
            return self.trips(lockstep[label].axis)[1] * lockstep[label].spatial if label in lockstep else None
        return padded_shape(arg, shape, self.tile, self.sizes, blocks, within)

    def core_roles(self, coord: tuple[int, ...], index: dict[str, int]) -> tuple[_Roles, tuple, tuple]:
        """The core's three roles, and the CBs and local buffers its part of a split's combine adds."""
        self.index = index
        self.combine = combine_code(self.split, self._states(), index[self.split.loop.name], coord) \
            if self.split else None
        env: dict[SSAValue, P.Affine] = {}
        counts = {}
        halves = []
        for axis in self.axes:
            tiles, trips = self.trips(axis)
            start = index[axis] * trips
            counts[axis] = trips if axis in self.lockstep else max(0, min(trips, tiles - start))
            grid_arg = self.grid.body.block.args[self.axes.index(axis)]
            step = P.Affine.var(f"t_{axis}")
            env[grid_arg] = P.Affine(start) + step
            if axis in self.balanced:  # block pairs from both ends, i and n - 1 - i: equal work per core
                counts[axis] = trips // 2
                halves = [(grid_arg, P.Affine(index[axis] * counts[axis]) + step),
                          (grid_arg, P.Affine(tiles - 1 - index[axis] * counts[axis]) - step)]
        if not halves:
            return self.loop_nest(env, counts, coord)
        (first, *extra), (second, *_) = [self.loop_nest({**env, grid_arg: position}, counts, coord)
                                          for grid_arg, position in halves]
        return (_Roles(*(first.get(r) + second.get(r) for r in ("reader", "compute", "writer"))), *extra)

    def loop_nest(self, env: dict, counts: dict, coord) -> tuple[_Roles, tuple, tuple]:
        """The tile body under the temporal loops of the candidate's order, `counts` trips each."""
        body = self.block(self.grid.body.block, env, coord)
        self.skip_epilogue = False
        for axis in reversed(self.candidate.order):
            hoisted = body
            body = _Roles(*([P.Loop(f"t_{axis}", counts[axis], tuple(getattr(body, r)))]
                            if getattr(body, r) else [] for r in ("reader", "compute", "writer")))
            if axis == self.candidate.order[-1] and self.kept:  # the kept panels around the innermost loop
                body.reader[:0], body.writer[:0] = hoisted.hoist_reader, hoisted.hoist_writer
                panels = [(b.name, b.rows * b.cols * self.kept[b.name][1]) for b in self.buffers.values()
                          if b.name in self.kept]
                body.compute = ([P.CbWait(name, tiles) for name, tiles in panels] + body.compute
                                + [P.CbPop(name, tiles) for name, tiles in panels])
        extra = (tuple(self.combine.cbs), tuple(self.combine.locals)) if self.combine else ((), ())
        return (body, *extra)

    def block(self, block: Block, env: dict, coord) -> _Roles:
        roles = _Roles()
        for op in block.ops:
            if isinstance(op, scf.ForOp):
                iv = op.body.block.args[0]
                name = iv.name_hint or "i"
                env[iv] = P.Affine.var(name)
                count = self.trips_until(op, env) if "loom.until" in op.attributes \
                    else self.value(op.ub, env).const - self.value(op.lb, env).const
                if op is self.split_loop:  # this core's chunk of the split loop
                    chunk = -(-count // self.split.width)
                    start = self.index[self.split.loop.name] * chunk
                    env[iv] = P.Affine(start) + P.Affine.var(name)
                    count = max(0, min(chunk, count - start))
                if self.skip_epilogue:
                    raise UnsupportedError(f"loop {name} follows the split loop {self.split.loop.name}: "
                                           "an epilogue with loops is not supported after a reduction split")
                inner = self.block(op.body.block, env, coord)
                for role in ("reader", "writer"):  # a kept row's loads, all before its first pass
                    if inner.get(f"panel_{role}"):
                        roles.get(role).append(P.Loop(name, count, tuple(inner.get(f"panel_{role}"))))
                inner.compute[:0] = [P.CbWait(p.buffer, (P.Affine.var(name) + 1) * self._panel_block(p.buffer))
                                     for p in self.rows.wait_before(op)]  # block i of a kept row in iteration i
                for role in _ROLE_LISTS:
                    if inner.get(role):
                        roles.get(role).append(P.Loop(name, count, tuple(inner.get(role))))
                roles.compute += [P.CbPop(p.buffer, self._panel_block(p.buffer) * p.trips)
                                  for p in self.rows.free_after(op)]
                if op is self.split_loop:
                    roles.compute += self.combine.compute
                    roles.writer += self.combine.writer
                    self.skip_epilogue = self.index[self.split.loop.name] != 0
            else:
                self.op(op, roles, env, coord)
        return roles

    def trips_until(self, loop: scf.ForOp, env: dict) -> P.Trips:
        """The trips of a loop to an enclosing tile's end: ceil(min(end, extent) / block), `end` affine in
        the enclosing loops (`KernelLowering.bounded_trip_count`)."""
        bounds = until_bounds(loop)
        block = self.value(bounds.block, env).const
        return P.Trips(self.value(bounds.end, env), block, -(-self.value(bounds.extent, env).const // block))

    def value(self, v: SSAValue, env: dict) -> P.Affine:
        """An index value as an affine expression of loop variables (block sizes are constants now)."""
        if v in env:
            return env[v]
        op = v.owner
        if isinstance(op, SymOp):
            return P.Affine(self.sizes[op.label])
        if isinstance(op, arith.ConstantOp):
            return P.Affine(op.value.value.data)
        if isinstance(op, (arith.AddiOp, arith.SubiOp)):
            a, b = self.value(op.lhs, env), self.value(op.rhs, env)
            return a + b if isinstance(op, arith.AddiOp) else a - b
        if isinstance(op, arith.MuliOp):
            a, b = self.value(op.lhs, env), self.value(op.rhs, env)
            if not b.terms:
                return a * b.const
            if not a.terms:
                return b * a.const
        if isinstance(op, arith.CeilDivUIOp):
            a, b = self.value(op.lhs, env), self.value(op.rhs, env)
            if not a.terms and not b.terms:
                return P.Affine(-(-a.const // b.const))
        raise UnsupportedError(f"index `{op.name}` is not affine in the loop indices")

    def global_blocks(self, view: SSAValue, env: dict) -> tuple[str, list[tuple[tuple, int]], int, int]:
        """(tensor, [(tile index, tile offset in the buffer)], rows, cols) of a global subview: one
        rows x cols block per position of the leading dimensions it spans (`x[tile, :, tile_t, :]`)."""
        sv = view.owner
        assert isinstance(sv, memref.SubviewOp)
        dyn_offsets = iter(sv.offsets)
        offsets = [self.value(next(dyn_offsets), env) if o == DYNAMIC_INDEX else P.Affine(o)
                   for o in sv.static_offsets.get_values()]
        index = offsets[:-2] + [_tile_affine(o, self.tile[0]) for o in offsets[-2:]]
        rows, cols = self._block_tiles(view)
        return sv.source.name_hint, leading_blocks(tuple(index), self._extents(sv)[:-2], rows * cols), rows, cols

    def _extents(self, sv: memref.SubviewOp) -> list[int]:
        """A subview's extents, its block sizes resolved."""
        dynamic = iter(sv.sizes)
        return [self.sizes[next(dynamic).owner.label] if s == DYNAMIC_INDEX else s
                for s in sv.static_sizes.get_values()]

    def op(self, op: Operation, roles: _Roles, env: dict, coord) -> None:
        if self.skip_epilogue and (isinstance(op, (CopyOp, MatmulOp, FillOp, TransposeOp, GenericOp, LinalgCopyOp))
                                   or getattr(op, "buffer", None) in self.epilogue_buffers):
            return  # a sender of a split: the epilogue and its stores are the root's
        if isinstance(op, (VbReserveOp, VbCommitOp, VbAcquireOp, VbReleaseOp)):
            buf = self.buffers[op.buffer]
            if buf.kind != "cb":
                return
            kept, row = buf.name in self.kept, buf.name in self.rows.panels
            if not self._read_here(buf.name) or (kept or row) and isinstance(op, (VbAcquireOp, VbReleaseOp)):
                return  # compute waits for the whole panel or row before the loop(s), frees it after
            producer = roles.get(f"hoist_{buf.producer}" if kept else f"panel_{buf.producer}" if row else buf.producer)
            if isinstance(op, VbReserveOp):
                producer.append(P.CbReserve(buf.name))
            elif isinstance(op, VbCommitOp):
                producer.append(P.CbPush(buf.name))
            elif isinstance(op, VbAcquireOp):
                roles.get(buf.consumer).append(P.CbWait(buf.name))
            else:
                roles.get(buf.consumer).append(P.CbPop(buf.name))
            return
        try:  # a refusal names the user's line of the op it comes from
            if isinstance(op, CopyOp):
                self.copy(op, roles, env, coord)
            elif isinstance(op, (MatmulOp, FillOp, TransposeOp, GenericOp, LinalgCopyOp)):
                roles.compute.append(self.compute(op, env))
        except UnsupportedError as err:
            raise _located(err, op, self.module) from None
        # anything else (index arithmetic, subviews, storage declarations): nothing to run

    def copy(self, op: CopyOp, roles: _Roles, env: dict, coord) -> None:
        if op in self.rows.dropped:
            return  # a later pass reads the row the first one kept
        if op.src_space.data == "L1":
            tensor, blocks, rows, cols = self.global_blocks(op.dest, env)
            buf = self._buf_of_view(op.source)
            roles.writer += [P.DramWrite(tensor, index, buf.name, rows, cols, offset, self.store_noc)
                             for index, offset in blocks]
            if not _double_buffered_cb(buf):
                roles.writer.append(P.Barrier())
            return
        tensor, blocks, rows, cols = self.global_blocks(op.source, env)
        buf = self._buf_of_view(op.dest)
        transfer = self.transfer_of[op]
        where = "hoist_" if buf.name in self.kept else "panel_" if buf.name in self.rows.panels else ""
        engine = roles.get(where + self.engine_of[op])
        if self._reads_back(op):  # its own stores land first (the writer issued them, in program order)
            if transfer.receivers > 1:
                raise UnsupportedError(f"`{tensor}` is read back by {transfer.receivers} cores from one; expected "
                                       "each core to read back the blocks it stored itself")
            engine.append(P.Barrier("writes"))
        own = self.read_noc[op]  # named only where it is not its engine's own NoC; a share elsewhere if spread
        named = None if own == engine_noc(self.engine_of[op], self.arch.noc.count) else own
        reads = block_reads(tensor, blocks, buf.name, rows, cols, self.parts_elsewhere.get(op, 0), 1 - own, named,
                            clipped(op.source))
        if transfer.receivers <= 1:
            engine += [*reads, P.Barrier("reads")]
            return
        ready, valid = f"{buf.name}_ready", f"{buf.name}_valid"
        if transfer.mode.startswith("forward"):
            engine += forward(coord, transfer.group, reads, buf.name, ready, valid)
            return
        lo, hi = group_rect(coord, transfer.group)
        if coord == lo:  # the sender: read once, wait for every receiver's slot, multicast
            engine += [*reads, P.Barrier("reads"),
                             P.SemWait(ready, transfer.receivers - 1), P.SemSet(ready, 0),
                             P.Multicast(lo, hi, buf.name), P.SemSet(valid, 1, lo=lo, hi=hi)]
        else:
            engine += [P.SemSet(valid, 0), P.SemInc(ready, 1, core=lo), P.SemWait(valid, 1)]

    def compute(self, op: Operation, env: dict) -> object:
        def ref(v: SSAValue) -> P.Ref:
            buf = self._buf_of_view(v)
            if buf.name in self.kept:  # block i of the kept panel in iteration i of its device loop
                return P.Ref(buf.name, row=P.Affine.var(self.kept[buf.name][0]) * buf.rows, rows=buf.rows,
                             cols=buf.cols)
            if buf.name in self.rows.reads:  # block i of the kept row in iteration i of each pass
                row, var = self.rows.reads[buf.name]
                return P.Ref(row, row=P.Affine.var(var) * buf.rows, rows=buf.rows, cols=buf.cols)
            return P.Ref(buf.name)

        return compute_instruction(op, ref, lambda v: self.value(v, env), self.tile[0])


def _tile_affine(offset: P.Affine, tile: int) -> P.Affine:
    if offset.const % tile or any(c % tile for _, c in offset.terms):
        raise UnsupportedError(f"a block at offset {offset} inside a {tile} x {tile} tile (a slice or index that "
                               f"is not a multiple of {tile}) is not supported yet; expected offsets in whole tiles")
    return P.Affine(offset.const // tile, tuple((n, c // tile) for n, c in offset.terms))


def build_program(concrete: ModuleOp, ranked, arch: Arch) -> P.Program:
    """The per-core program of a ranked schedule (`loom.solve.select.Ranked`)."""
    problem = ranked.model.problem
    sizes = {k: v for k, v in ranked.values.items() if k in problem.domains}
    knobs = {k: v for k, v in ranked.values.items() if k in problem.knobs}
    builder = ProgramBuilder(concrete, ranked.model.candidate, sizes, knobs, ranked.model.knobs, arch)
    return builder.build()


def _located(err: UnsupportedError, op: Operation | None, module: ModuleOp) -> UnsupportedError:
    """`err` at the user's line of `op` (its `loom.loc`), when it has no location yet."""
    if err.location is not None or op is None or "loom.loc" not in op.attributes:
        return err
    fn = next((o for o in module.walk() if isinstance(o, func.FuncOp)), None)
    source = fn.attributes["loom.source"].data if fn is not None and "loom.source" in fn.attributes else ""
    name, _, line = op.attributes["loom.loc"].data.rpartition(":")
    path = source if Path(source).name == name else name
    lines = Path(path).read_text().splitlines() if Path(path).is_file() else []
    number = int(line) if line.isdigit() else 0
    code = lines[number - 1] if 0 < number <= len(lines) else ""
    return type(err)(err.message, SourceLocation(path, number, code))
