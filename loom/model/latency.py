"""Stage 5b: the symbolic latency T(x, b) of a candidate, assembled bottom-up from its HEG.

    seq:  T = T1 + T2 + ...
    pipe: l = load stage, m = child, s = store stage, knobs b = (load overlap, store overlap); u = the
          compute up to the last op that reads a loaded block (a single slot is free after it: the next
          block's load may start), f = the compute from the first op that writes a block to store (the
          next block's compute waits for this store only there):
          (0,0): max(m, u + l, f + s)    (0,1): max(m, u + l, s)    (1,0): max(l, m, f + s)    (1,1): max(l, m, s)
          (the paper's l + m + s, max(l + m, s), max(l, m + s) wait for the whole middle: u = f = m, and
          for the store before the next load)
    for:  T = trips * T(child); for a pipelined child, (trips - 1) * T_pipe(b) + (l + m + s): the
          paper's product is the steady state, one iteration also fills and drains the pipeline; a nest
          of loops around one pipe that multicasts no load fills and drains once: (product of the trips
          - 1) * T_pipe(b) + (l + m + s); so does a loop to a tile's end inside a pipelined loop whose
          loads overlap, once per core (`streamed_pipe`): its other runs are all steady iterations
    hoist (knob h on the innermost temporal loop): h = 1 keeps the hoistable loads' panels in L1:
          they are read whole before the loop (one load stage, not overlapped: compute waits for
          the panel), and the loop's iterations leave those loads out
    keep (knob k on the tile pipe): k = 1 reads the rows that sibling loops (passes) load alike once, and
          the later passes leave those loads out. The first pass waits for block i in iteration i, so a
          tile's first run is that pass with its loads, as without the knob (`streamed`); with the tile
          pipe's load overlap on, the panel holds two rows and the next tile's row arrives during this
          tile's passes: the steady state is the tile pipe reading the rows whole, overlapped with its
          compute (`ahead`); with it off, every tile runs as the first
    kernel: T = launch overhead + each core's setup (`kernel_setup_cycles`) + T(root)

Primitive latencies come only from the architecture description (fixed latency + volume /
throughput):
- a DRAM load stage on one core: its loads alternate between the two data-movement engines
  (`loom.mapping.engines`), each reading its operands one after the other at the core's measured
  DRAM read rate; an operand multicast to a group is read once by its sender and then pushed
  over the NoC at the measured multicast rate plus a per-hop latency across the group. The
  sender waits for its reads but not for its multicasts, which run while it reads the next
  block: an engine takes the larger of its reads and its multicasts. All cores
  read at once, so the stage also cannot beat the chip's DRAM bandwidth, nor what the NoC links
  leaving the DRAM banks carry (`loom.arch.routes.dram_capacity`; each load's reads on its NoC, `read_noc`,
  or with the pipe's `spread` knob both NoCs together), shared by every reader (cores / group
  readers per operand): the stage takes the larger, plus the DRAM request latency; an operand forwarded down a line of g
  cores reaches the last one after g - 1 store-and-forward hops at the measured 1 -> 1 rate;
- a store stage likewise with the DRAM write rate;
- a matmul costs ceil(M/32)·ceil(N/32)·ceil(K/32) tiles × cycles per tile at the fidelity the
  architecture uses for its input type, plus a fixed call latency;
- elementwise, reduction, fill, copy and transpose ops cost their tiles × the vector-unit cycles
  per tile of each body op; a position mask in a loop to the enclosing tile's end (causal
  attention's) runs only on the r = ceil(outer block / block) key blocks that cross the diagonal, once
  per query block and outside the loop's pipeline (the cores skip it on blocks kept whole).
- a split loop's combine (root core of a group of `w` cores): each sender copies its partial
  states into a circular buffer and writes them into the root's L1 (the root receives
  (w-1) states at the measured 1 <- all rate, a sender writes at the 1 -> 1 rate), after a
  ready/valid semaphore round trip to the farthest sender; the root then merges the w - 1 partials
  on the vector unit (sum: one add per state tile; lse: max, two subtractions and two
  exponentials per max tile, two multiplies and an add per rescaled tile). Only the roots
  run the epilogue, so only they store.
Each priced term carries a category (dram, noc, compute, fixed) for the report.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass, field

from loom import cost, ops
from loom.arch import Arch
from loom.arch.routes import dram_capacity, shared_links
from loom.errors import UnsupportedError
from loom.ir.types import dtype_name
from loom.mapping.candidates import Candidate
from loom.mapping.engines import load_engines, read_noc, reading_group, store_noc
from loom.model import expr as E
from loom.model.heg import HEG, Combine, Compute, Dim, For, Pipe, Primitive, Seq, dim_expr, nodes
from loom.model.instruction_price import instruction, instruction_throughput
from loom.model.triangular import TriangularLoops


@dataclass
class Latency:
    """The candidate's latency tree and per-category work for the report (its knobs are declared on
    the HEG: `loom.model.heg.knobs`)."""

    total: E.Expr
    categories: dict[str, list[E.Expr]] = field(default_factory=dict)  # dram/noc/compute/fixed -> work terms


def tiles(shape: tuple, tile: tuple[int, int]) -> E.Expr:
    """Number of 32x32 tiles of a block (a vector occupies one tile column)."""
    if len(shape) == 1:
        shape = (shape[0], tile[1])
    head = [dim_expr(d) for d in shape[:-2]]
    rows, cols = shape[-2], shape[-1]
    return E.mul(*head, E.ceil_div(dim_expr(rows), tile[0]), E.ceil_div(dim_expr(cols), tile[1]))


@functools.lru_cache(maxsize=65536)
def block_bytes(prim: Primitive) -> E.Expr:
    """Bytes of a load's or store's block (shared by every candidate that moves it: expressions are immutable);
    of a load reaching outside its tensor, the share inside it (on average over the tile loop)."""
    whole = E.mul(prim.element_bytes, *[dim_expr(d) for d in prim.dims[0]])
    return whole if prim.inside == (1, 1) else E.ceil_div(E.mul(whole, prim.inside[0]), prim.inside[1])


_times = functools.lru_cache(maxsize=65536)(lambda count, size: E.mul(count, size))
"""count x size, shared by the candidates that read a block on as many cores."""


def tile_bytes(prim: Primitive, tile: tuple[int, int]) -> E.Expr:
    """Bytes of a block held in whole 32x32 tiles (a partial state's L1 and NoC volume)."""
    return E.mul(tiles(prim.dims[0], tile), tile[0] * tile[1] * prim.element_bytes)


_COMPUTE_PRICES: dict[tuple[int, Primitive, bool], tuple[Arch, E.Expr]] = {}
"""Each compute primitive's price on a chip, shared by the candidates of a kernel (they price the same ops);
the chip is kept with its price, so an id reused by another chip never matches."""


class LatencyModel(TriangularLoops):
    """Prices one candidate's HEG on one architecture."""

    def __init__(self, arch: Arch, candidate: Candidate):
        self.arch = arch
        self.candidate = candidate
        self.tile = (arch.tiling.tile_rows, arch.tiling.tile_cols)
        self.result = Latency(E.Const(0), categories={"dram": [], "noc": [], "compute": [], "fixed": []})
        self.kept_loads: dict[str, E.Expr] = {}  # tensor -> hoist knob: no load in the loop when on
        self.kept_buffers: dict[str, E.Expr] = {}  # a pass's load buffer -> keep knob: no load when on
        self.stored: set[str] = set()  # tensors the kernel stores: a load of one reads back a core's own blocks
        self.diagonal_masks: list[E.Expr] | None = None  # in a loop to a tile's end: its position masks
        self.diagonal_live: list[E.Expr] = []  # ... and the ops on its score blocks (run on live tiles)
        self.diagonal_block: tuple[Dim, Dim] | None = None  # ... and (outer block, own block)
        self.streaming: E.Expr | None = None  # in a pipelined loop: its load knob (its reader runs ahead)
        self.first_fills: dict[str, E.Expr] = {}  # ... the fills of the loops to a tile's end it holds, paid once

    def build(self, heg: HEG) -> Latency:
        self.stored = {p.tensor for node in nodes(heg) if isinstance(node, Pipe) for p in node.stores}
        launch = E.Const(self.arch.launch_overhead_cycles, label="kernel launch")
        setup = E.Const(self.arch.kernel_setup_cycles, label="kernel setup on each core")
        self.result.categories["fixed"] += [launch, setup]
        self.result.total = E.add(launch, setup, self.latency(heg, E.Const(1)))
        return self.result

    # -------------------------------------------------------------- HEG nodes
    def latency(self, heg: HEG, repeat: E.Expr) -> E.Expr:
        """T(heg); `repeat` is how often it runs in total (for the per-category work totals)."""
        if isinstance(heg, Seq):
            return E.add(*[self.latency(item, repeat) for item in heg.items])
        if isinstance(heg, For):
            outer = self.diagonal_masks, self.diagonal_live, self.diagonal_block
            if heg.until is not None:
                self.diagonal_masks, self.diagonal_live = [], []
                self.diagonal_block = (heg.until.block, heg.trips[1])
            else:
                self.diagonal_masks, self.diagonal_block = None, None
            try:
                cycles = self.loop(heg, repeat)
                return cycles if not self.diagonal_masks else self.diagonal(heg, cycles, repeat)
            finally:
                self.diagonal_masks, self.diagonal_live, self.diagonal_block = outer
        if isinstance(heg, Compute):
            # a body's leading matmul reads loaded blocks: its unpacking starts while math finishes the
            # instruction before it (the last K step's, in a K loop), so it costs its busiest thread
            return E.add(*[self.compute(p, repeat, streamed=i == 0 and p.kind == "matmul")
                           for i, p in enumerate(heg.ops)])
        if isinstance(heg, Combine):
            return self.combine(heg, repeat)
        return self.pipe(heg, repeat)

    def loop(self, heg: For, repeat: E.Expr) -> E.Expr:
        """T(for). A nest of plain loops around one pipe (`_plain_nest`: nothing else in their bodies, no loop
        to a tile's end, no kept panels, no multicast load) pipelines across the whole nest: its roles walk
        the nest without draining between iterations of the outer loops, so the nest costs (product of
        trips - 1) steady iterations plus one that fills and drains."""
        nest = _plain_nest(heg)
        if len(nest) > 1:
            total = E.mul(*[self.trips(f) for f in nest])
            steady, serial, inner_fills = self.streamed_pipe(nest[-1].child, E.mul(repeat, total), True)
            return E.add(E.mul(E.add(total, -1), steady), serial, *inner_fills, label=f"for {heg.name}")
        trips = self.trips(heg)
        if isinstance(heg.child, Pipe):
            # a pipelined loop: (trips - 1) steady-state iterations, plus one iteration that fills
            # and drains the pipeline (the paper's trips x T_pipe leaves out the fill and drain)
            fill = E.Const(0)
            if heg.hoist is not None:  # kept panels: read once before the loop, not in its iterations
                knob = E.Knob(heg.hoist.knob)
                # the panel reads count as work (the report's breakdown) only when the knob keeps them
                spread = E.Knob(heg.child.spread_knob.name) if heg.child.spread_knob else None
                fill = E.select(knob, self.panel_fill(heg.hoist, E.mul(repeat, knob), spread), E.Const(0))
                self.kept_loads = {t: knob for t in heg.hoist.tensors}
            steady, serial, inner_fills = self.streamed_pipe(heg.child, E.mul(repeat, trips), heg.until is None)
            self.kept_loads = {}
            if heg.until is not None:  # (trips - 1) steady iterations, trips = twice / 2 on average
                every = E.ceil_div(E.mul(E.add(self.twice_trips_until(heg), -2), steady), 2)
                if self.streaming is None:
                    return E.add(fill, every, serial, label=f"for {heg.name}")
                # in a pipelined loop whose loads overlap: the reader walks on into the next block's first
                # iterations, so this loop fills and drains once per core, not once per enclosing block
                self.first_fills[heg.name] = E.select(self.streaming, E.add(serial, E.mul(-1, steady)), E.Const(0))
                return E.add(fill, every, E.select(self.streaming, steady, serial), label=f"for {heg.name}")
            return E.add(fill, E.mul(E.add(trips, -1), steady), serial, *inner_fills, label=f"for {heg.name}")
        child = self.latency(heg.child, E.mul(repeat, trips))
        if heg.until is not None:
            return E.ceil_div(E.mul(self.twice_trips_until(heg), child), 2, label=f"for {heg.name}")
        return E.mul(trips, child, label=f"for {heg.name}")

    def streamed_pipe(self, pipe: Pipe, repeat: E.Expr, streams: bool) -> tuple[E.Expr, E.Expr, list[E.Expr]]:
        """A pipelined loop's pipe: (steady, serial) as `pipe`, and the fills of the loops to a tile's end
        inside it, which it pays once: with the pipe's loads overlapping (`streams`, its load knob on), its
        reader walks on into the next iteration's first loads while this one computes."""
        outer = self.streaming, self.first_fills
        self.streaming = E.Knob(pipe.load_knob.name) if streams and pipe.load_knob else None
        self.first_fills = {}
        try:
            steady, serial = self.pipe(pipe, repeat, with_serial=True)
            return steady, serial, list(self.first_fills.values())
        finally:
            self.streaming, self.first_fills = outer

    def panel_fill(self, hoist, repeat: E.Expr, spread: E.Expr | None) -> E.Expr:
        """Reading the kept panels before the loop: each load's block widened to the whole extent
        of its device loop, as one load stage (spread over the NoCs as the loop's own loads are)."""
        panels = [dataclasses.replace(p, dims=(hoist.panel(p.dims[0]),)) for p in hoist.loads]
        engine = dict(zip((p.buffer for p in hoist.among), self.engines(list(hoist.among))))
        return self.load_stage(panels, repeat, spread, [engine[p.buffer] for p in hoist.loads])

    def trips(self, loop: For) -> E.Expr:
        extent, block = loop.trips
        if loop.until is not None:
            return self.trips_until(loop)
        count = E.ceil_div(dim_expr(extent), dim_expr(block))
        return E.ceil_div(count, loop.spatial) if loop.spatial > 1 else count

    def pipe(self, pipe: Pipe, repeat: E.Expr, with_serial: bool = False):
        """T_pipe(b); with `with_serial`, also l + m + s (one iteration with nothing overlapped). A tile pipe
        that may keep rows for its passes: `streamed` where its load overlap is off, and for the first
        tile; `ahead` in the steady state with the overlap on (the module docstring's keep)."""
        if pipe.keep is None or pipe.load_knob is None:
            return self._pipe(pipe, repeat, with_serial, ahead=False)
        streamed = self._pipe(pipe, repeat, True, ahead=False)
        steady = E.select(E.Knob(pipe.load_knob.name), self._pipe(pipe, repeat, False, ahead=True), streamed[0])
        return (steady, streamed[1]) if with_serial else steady

    def _pipe(self, pipe: Pipe, repeat: E.Expr, with_serial: bool, ahead: bool):
        spread = E.Knob(pipe.spread_knob.name) if pipe.spread_knob else None
        l, reads = self.loads(pipe, repeat, spread, ahead)  # noqa: E741 (the paper's l, m, s)
        outer, kept = self.kept_buffers, pipe.keep
        if kept is not None:  # the passes below read the kept rows in L1 when its knob is on (not the first
            # pass where the rows stream into it)
            kept_here = kept.buffers + kept.later if ahead else kept.later
            self.kept_buffers = {**outer, **{b: E.Knob(kept.knob) for b in kept_here}}
        items = pipe.child.items if isinstance(pipe.child, Seq) else [pipe.child]
        try:
            costs = [self.latency(item, repeat) for item in items]
        finally:
            self.kept_buffers = outer
        m = E.add(*costs) if costs else E.Const(0)
        s = self.store_stage(pipe.stores, repeat) if pipe.stores else E.Const(0)
        if reads is None and not pipe.stores:
            return (m, m) if with_serial else m
        loaded = {p.buffer for p in pipe.loads} | set(kept.buffers + kept.later if kept and ahead else ())
        used, filling = self.released(items, costs, loaded, {p.buffer for p in pipe.stores})
        cases = []
        load_knob = E.Knob(pipe.load_knob.name) if pipe.load_knob else None
        store_knob = E.Knob(pipe.store_knob.name) if pipe.store_knob else None
        # one slot: the next block's load starts when compute frees this one (`used`), and the next block's
        # compute fills the stored block only once this one is written (`filling` before the end)
        # the writer drains a single slot before it issues its own next loads (`writer_reads`)
        next_load, next_store = E.add(used, l), E.maximum(E.add(filling, s), E.add(s, self.writer_reads(pipe)))
        no_store = E.maximum(m, next_load, next_store) if store_knob is None else E.select(
            store_knob, E.maximum(m, next_load, s), E.maximum(m, next_load, next_store))
        if load_knob is None:
            return (no_store, E.add(l, m, s)) if with_serial else no_store
        with_load = E.maximum(l, m, next_store) if store_knob is None else E.select(
            store_knob, E.maximum(l, m, s), E.maximum(l, m, next_store))
        cases.append(E.select(load_knob, with_load, no_store))
        if reads is not None and pipe.stores:  # overlapped or not, the stage's reads and writes share the DRAM
            traffic = E.add(reads, self.chip_writes(pipe.stores))
            cases += [E.rate(traffic, self.arch.dram.bandwidth_bytes_per_cycle,
                             label="chip DRAM bandwidth (loads and stores)"),
                      self.bank_links(pipe.loads, pipe.stores, spread)]
        steady = E.maximum(*cases, label=f"pipe {pipe.name}")
        return (steady, E.add(l, m, s)) if with_serial else steady

    def writer_reads(self, heg: HEG) -> E.Expr:
        """The writer's own DRAM reads in one run of `heg` (loads `load_engine` gives it, at the core's read
        rate, times the trips of the loops around them): it issues them after a single-slot store."""
        if isinstance(heg, Pipe):
            mine = [E.rate(self.read_size(p), self.arch.rates.dram_read)
                    for p, engine in zip(heg.loads, self.engines(heg.loads)) if engine == "writer"]
            return E.add(*mine, self.writer_reads(heg.child))
        if isinstance(heg, Seq):
            return E.add(E.Const(0), *[self.writer_reads(item) for item in heg.items])
        if isinstance(heg, For):
            return E.mul(self.trips(heg), self.writer_reads(heg.child))
        return E.Const(0)

    @staticmethod
    def released(items: list, costs: list[E.Expr], loaded: set[str], stored: set[str]) -> tuple[E.Expr, E.Expr]:
        """(u, f) of a pipe's middle: u, its compute up to the last item that reads a loaded block (the
        blocks' buffers are free after it), and f, from the first item that writes a block to store (the
        compute before it does not wait for the previous block's store); the whole middle where none does."""
        if not costs:
            return E.Const(0), E.Const(0)
        ops = [[p for n in nodes(item) if isinstance(n, Compute) for p in n.ops] for item in items]
        last = max((i for i, found in enumerate(ops) if any(loaded & set(p.reads) for p in found)),
                   default=len(items) - 1)
        first = min((i for i, found in enumerate(ops) if any(stored & set(p.writes) for p in found)), default=0)
        return E.add(*costs[:last + 1]), E.add(*costs[first:])

    def loads(self, pipe: Pipe, repeat: E.Expr, spread: E.Expr | None,
              ahead: bool = False) -> tuple[E.Expr, E.Expr | None]:
        """The load stage of a pipe and the bytes its cores read (None: it loads nothing). A pass's loads of
        rows the tile pipe keeps drop out when the keep knob is on; with `ahead`, the tile pipe then reads
        the rows whole (else the first pass reads them)."""
        kept = [p for p in pipe.loads if p.buffer in self.kept_buffers]
        if kept:
            knob = self.kept_buffers[kept[0].buffer]
            rest = [p for p in pipe.loads if p not in kept]
            on = self.load_stage(rest, E.mul(repeat, knob), spread) if rest else E.Const(0)
            off = self.load_stage(pipe.loads, E.mul(repeat, E.add(1, E.mul(-1, knob))), spread)
            return E.select(knob, on, off), E.select(knob, self.chip_reads(rest) if rest else E.Const(0),
                                                      self.chip_reads(pipe.loads))
        if pipe.keep is not None and ahead:
            knob, rows = E.Knob(pipe.keep.knob), pipe.keep.panels()
            on = self.load_stage(pipe.loads + rows, E.mul(repeat, knob), spread)
            off = self.load_stage(pipe.loads, E.mul(repeat, E.add(1, E.mul(-1, knob))), spread) \
                if pipe.loads else E.Const(0)
            return E.select(knob, on, off), E.select(knob, self.chip_reads(pipe.loads + rows),
                                                      self.chip_reads(pipe.loads) if pipe.loads else E.Const(0))
        if not pipe.loads:
            return E.Const(0), None
        return self.load_stage(pipe.loads, repeat, spread), self.chip_reads(pipe.loads)

    def read_size(self, prim: Primitive, inside_only: bool = True) -> E.Expr:
        """Bytes of one block of a load (`inside_only`: of a block reaching outside its tensor, the share DRAM
        moves; else the whole block, as a multicast pushes it); none where a hoist knob keeps its panel in L1
        or a keep knob its rows."""
        size = block_bytes(prim if inside_only else dataclasses.replace(prim, inside=(1, 1)))
        if prim.tensor in self.kept_loads:
            size = E.select(self.kept_loads[prim.tensor], E.Const(0), size)
        if prim.buffer in self.kept_buffers:
            size = E.select(self.kept_buffers[prim.buffer], E.Const(0), size)
        return size

    def chip_reads(self, loads: list[Primitive]) -> E.Expr:
        """Bytes all cores of a load stage read from DRAM (a multicast's sender reads for its group)."""
        return E.add(*[self.chip_read(p) for p in loads])

    def chip_read(self, prim: Primitive) -> E.Expr:
        group = prim.transfer.receivers if prim.transfer else 1
        return _times(-(-self.candidate.view.cores // group), self.read_size(prim))

    def chip_writes(self, stores: list[Primitive]) -> E.Expr:
        """Bytes all cores of a store stage write to DRAM (a split's roots alone store)."""
        return E.mul(self.candidate.roots, E.add(*[block_bytes(p) for p in stores]))

    def bank_links(self, loads: list[Primitive], stores: list[Primitive], spread: E.Expr | None) -> E.Expr:
        """A stage's DRAM traffic over the NoC links at the banks (`loom.arch.routes.shared_links`: a link
        carries a x reads + b x writes): its stores on their NoC (`store_noc`), each load's reads on the NoC
        that carries most to its reading cores (`read_noc`) or, with the `spread` knob on, shared between
        the NoCs as `spread_reads` balances them."""
        nocs, used, width = self.arch.noc.count, self.candidate.view.occupancy, self.arch.noc.link_bytes_per_cycle
        writer = store_noc(self.arch, used)
        stored = self.chip_writes(stores) if stores else None
        label = "NoC links at the DRAM banks" + (" (loads and stores)" if stores else "")
        on_noc: dict[int, list[E.Expr]] = {}
        groups: dict[int, set[tuple[int, ...]]] = {}
        for prim in loads:
            group = reading_group(prim.transfer)
            noc = read_noc(self.arch, used, group)
            on_noc.setdefault(noc, []).append(self.chip_read(prim))
            groups.setdefault(noc, set()).add(group)

        def links(noc: int, readers: set | None = None) -> tuple[tuple[float, float], ...]:
            return shared_links(self.arch, noc, used, tuple(sorted(readers if readers is not None
                                                                   else groups.get(noc, {()}))))

        def busiest(pairs, reads: E.Expr | None, writes: E.Expr | None) -> E.Expr:
            """Cycles of the busiest link: (a x reads + b x writes) / link width, over the links."""
            return E.maximum(*[E.add(*([E.rate(reads, width / a)] if a and reads is not None else []),
                                     *([E.rate(writes, width / b)] if b and writes is not None else []))
                               for a, b in pairs if (a and reads is not None) or (b and writes is not None)])

        own = E.maximum(*[busiest(links(noc), E.add(*on_noc[noc]) if noc in on_noc else None,
                                  stored if noc == writer else None)
                          for noc in range(nocs) if noc in on_noc or (noc == writer and stored is not None)])
        if spread is None or nocs < 2:
            return E.with_label(own, label)
        # reads R over both NoCs, the writer's links also carrying the stores W, the other's busiest c x R_o:
        # balanced, each writer link l gives c (a_l R + b_l W) / (a_l + c); no split beats the stores alone
        every = {g for found in groups.values() for g in found}
        (c, _), *_ = sorted(links(1 - writer, every), reverse=True)
        pairs = [(c * a / (a + c), c * b / (a + c)) for a, b in links(writer, every)]
        both = busiest(pairs, self.chip_reads(loads), stored)
        if stored is not None:
            both = E.maximum(both, busiest([(0, b) for _, b in links(writer, every)], None, stored))
        return E.select(spread, both, own, label=label)

    def engines(self, loads: list[Primitive]) -> list[str]:
        """The engine that issues each load of a pipe stage (`loom.mapping.engines.load_engines`)."""
        return load_engines([p.inside_span for p in loads], [p.tensor in self.stored for p in loads])

    # ------------------------------------------------------------- primitives
    def load_stage(self, loads: list[Primitive], repeat: E.Expr, spread: E.Expr | None = None,
                   issued_by: list[str] | None = None) -> E.Expr:
        """One stage of DRAM loads, each on its engine (`issued_by`, default `engines(loads)`)."""
        rates, noc = self.arch.rates, self.arch.noc
        engines: dict[str, list[E.Expr]] = {}
        multicasts: dict[str, list[E.Expr]] = {}  # issued, not waited for: they overlap the engine's next read
        lines: dict[str, list[E.Expr]] = {}
        for prim, engine in zip(loads, issued_by or self.engines(loads)):
            size, pushed = self.read_size(prim), self.read_size(prim, inside_only=False)
            read = E.rate(size, rates.dram_read, label=f"DRAM read {prim.tensor}")
            group = prim.transfer.receivers if prim.transfer else 1
            self.result.categories["dram"].append(E.mul(repeat, read))
            work = [read, E.Const(noc.transfer_issue_cycles)]
            pushes = []
            if group > 1 and prim.transfer.mode.startswith("forward"):  # store and forward down the line
                hop = E.add(E.rate(pushed, rates.core_to_core, label=f"forward {prim.tensor}"),
                            noc.hop_latency_cycles + noc.niu_latency_cycles + noc.transfer_issue_cycles)
                push = E.mul(group - 1, hop)
                self.result.categories["noc"].append(E.mul(repeat, push))
                work.append(push)
            elif group > 1:
                span = sum(g - 1 for g in prim.transfer.group)
                push = E.add(E.rate(pushed, rates.multicast, label=f"multicast {prim.tensor}"),
                             span * noc.hop_latency_cycles + noc.niu_latency_cycles)
                self.result.categories["noc"].append(E.mul(repeat, push))
                pushes.append(push)
            engines.setdefault(engine, []).extend(work)
            multicasts.setdefault(engine, []).extend(pushes)
            lines.setdefault(engine, []).append(E.rate(self.chip_read(prim), self.arrival_bandwidth(prim)))
        per_core = E.maximum(*[E.add(*work) for work in engines.values()],
                             *[E.add(*pushes) for pushes in multicasts.values() if pushes])
        bounds = [E.rate(self.chip_reads(loads), self.arch.dram.bandwidth_bytes_per_cycle, label="chip DRAM bandwidth"),
                  self.bank_links(loads, [], spread)]
        bounds += [self.fewer_banks(p, self.chip_read(p)) for p in loads if self.crowds_banks(p)]
        bounds += [E.add(*parts, label="NoC links into the reading cores") for parts in lines.values()]
        return E.add(E.maximum(per_core, *bounds), self.arch.dram.read_latency_cycles, label="load stage")

    def crowds_banks(self, prim: Primitive) -> bool:
        """Whether the cores' blocks of an access can share fewer than all DRAM banks: they start at one
        column and the tensor's rows are a multiple of some banks apart in the interleaved layout."""
        return prim.same_columns and prim.row_extent > 0 and self.banks_apart(prim) > 1

    def banks_apart(self, prim: Primitive) -> int:
        """g = gcd(L, B): L the tensor's rows apart in tiles, B the DRAM banks (tile i in bank i mod B)."""
        return math.gcd(-(-prim.row_extent // self.tile[1]), self.arch.dram.banks)

    def fewer_banks(self, prim: Primitive, chip_bytes: E.Expr) -> E.Expr:
        """The cores' blocks of an access that all start at one column, in DRAM's interleaved layout (tile i
        in bank i mod B; rows L tiles apart): their rows start on the B / g banks that are multiples of
        g = gcd(L, B) apart, and a block w tiles wide covers min(g, w) banks from each, so the chip's
        `chip_bytes` of it are served by (B / g) min(g, w) of the B banks (all when w >= g)."""
        g = self.banks_apart(prim)
        width = E.ceil_div(dim_expr(prim.dims[0][-1]), self.tile[1])
        return E.rate(E.ceil_div(E.mul(chip_bytes, g), E.minimum(g, width)), self.arch.dram.bandwidth_bytes_per_cycle,
                      label=f"DRAM banks under the blocks of {prim.tensor}")

    def arrival_bandwidth(self, prim: Primitive) -> int:
        """Bytes per cycle that can arrive at the cores reading `prim` from DRAM. A NoC ends its
        route along one dimension (NoC 1 along rows, NoC 0 along columns), so the readers' data
        shares the links of the lines they sit on: with a column multicast only one row of senders
        reads, and all of A crosses that row's links (`read_noc` takes the NoC that ends along columns
        there)."""
        dims = self.candidate.view.occupancy
        group = prim.transfer.group if prim.transfer else (1,) * len(dims)
        if len(dims) == 1 or self.arch.noc.count == 1:
            lines = max(dims[0] // group[0], 1)
        else:
            axis = 1 if read_noc(self.arch, dims, reading_group(prim.transfer)) == 1 else 0
            lines = max(dims[axis] // group[axis], 1)
        return lines * self.arch.noc.link_bytes_per_cycle

    def store_stage(self, stores: list[Primitive], repeat: E.Expr) -> E.Expr:
        rates = self.arch.rates
        sizes = [block_bytes(p) for p in stores]
        per_core = E.add(*[E.rate(s, rates.dram_write) for s in sizes],
                         self.arch.noc.transfer_issue_cycles * len(stores))
        self.result.categories["dram"].append(E.mul(repeat, per_core))
        total = self.chip_writes(stores)
        crowded = [self.fewer_banks(p, E.mul(self.candidate.roots, block_bytes(p)))
                   for p in stores if self.crowds_banks(p)]
        shared = E.maximum(E.rate(total, self.arch.dram.bandwidth_bytes_per_cycle, label="chip DRAM bandwidth"),
                           *crowded,
                           E.rate(total, dram_capacity(self.arch, store_noc(self.arch, self.candidate.view.occupancy),
                                                       "write", self.candidate.view.occupancy),
                                  label="NoC links into the DRAM banks"))
        return E.add(E.maximum(per_core, shared), self.arch.dram.write_latency_cycles, label="store stage")

    def combine(self, node: Combine, repeat: E.Expr) -> E.Expr:
        noc, rates = self.arch.noc, self.arch.rates
        senders = node.split.width - 1
        state_tiles = {p.buffer: tiles(p.dims[0], self.tile) for p in node.states}
        state_bytes = E.add(*[tile_bytes(p, self.tile) for p in node.states])
        hops = sum(size - 1 for _, _, size in node.split.levels)  # to the farthest sender
        path = hops * noc.hop_latency_cycles + noc.niu_latency_cycles
        pack = E.add(*[instruction(self.arch, cost.datacopy(self.arch, "copy", state_tiles[p.buffer],
                                                            dtype_name(p.dtype), dtype_name(p.dtype)),
                                   f"pack {p.buffer}") for p in node.states])
        send = E.add(E.maximum(E.rate(state_bytes, rates.core_to_core),
                               E.rate(E.mul(senders, state_bytes), rates.gather_all)),
                     3 * path + noc.transfer_issue_cycles * len(node.states), label="gather partial states")
        per_partial = []
        for p in node.states:
            role, count, dtype = p.ops[0], state_tiles[p.buffer], dtype_name(p.dtype)
            if role == "sum":
                names = ["add"]
            elif role == "max":
                names = ["max", "sub", "exp", "sub", "exp", "copy"] if node.split.loop.combine == "lse" else ["max"]
            else:  # rescaled
                names = ["mul", "mul", "add"]
            per_partial += [instruction(self.arch, self.merge_op(name, count, dtype), f"merge {name}")
                            for name in names]
        merge = E.mul(senders, E.add(*per_partial), label=f"merge {senders} partials ({node.split.loop.combine})")
        self.result.categories["noc"].append(E.mul(repeat, send))
        self.result.categories["compute"].append(E.mul(repeat, E.add(pack, merge)))
        return E.add(pack, send, merge, label=f"combine {node.split.label}")

    def merge_op(self, name: str, count: E.Expr, dtype: str) -> cost.Stages:
        """One instruction of a combine's merge (as `loom.backend.combine` emits it)."""
        if name == "copy":
            return cost.datacopy(self.arch, "copy", count, dtype, dtype)
        op = ops.lookup("unary" if name == "exp" else "binary", name)
        return cost.eltwise(self.arch, op, count, (dtype,) * (2 if op.form == "binary" else 1), dtype)

    def compute(self, prim: Primitive, repeat: E.Expr, streamed: bool = False) -> E.Expr:
        # a compute op's price depends on it and the chip alone, not on the candidate
        key = (id(self.arch), prim, streamed)
        known = _COMPUTE_PRICES.get(key)
        if known is None or known[0] is not self.arch:
            label = f"{prim.kind}@{prim.loc}" if prim.kind == "matmul" else prim.label
            if len(_COMPUTE_PRICES) > 50_000:
                _COMPUTE_PRICES.clear()
            price = (instruction_throughput if streamed else instruction)(self.arch, self.stages(prim), label)
            known = _COMPUTE_PRICES[key] = (self.arch, price)
        cost_ = known[1]
        if self.diagonal_masks is not None and prim.ops == ("loom.position_mask",):
            self.diagonal_masks.append(cost_)  # priced once per diagonal block (`diagonal`)
            return E.Const(0)
        if self.diagonal_masks is not None and self.on_scores(prim):
            self.diagonal_live.append(cost_)
        self.result.categories["compute"].append(E.mul(repeat, cost_))
        return cost_

    def stages(self, prim: Primitive) -> cost.Stages:
        """What `prim` asks of the Tensix threads (`loom.cost`, the numbers the simulator uses)."""
        *inputs, out = prim.dtypes
        if prim.kind == "matmul":
            (m, k), (_, n) = prim.dims[0][-2:], prim.dims[1][-2:]
            rows = m if isinstance(m, int) and m < self.tile[0] else None  # a thin M block
            tiles_of = lambda d: E.ceil_div(dim_expr(d), self.tile[0])  # noqa: E731
            return cost.matmul(self.arch, tiles_of(m), tiles_of(n), tiles_of(k), (inputs[0], inputs[1], out),
                               rows_valid=rows)
        count = tiles(prim.dims[0], self.tile)
        if prim.kind == "reduce":
            *lead, rows, cols = prim.dims[0]
            rows_tiles = E.mul(*[dim_expr(d) for d in lead], E.ceil_div(dim_expr(rows), self.tile[0]))
            op = ops.from_ir(prim.ops[0], reduction=True)
            return cost.reduce(self.arch, op, rows_tiles, E.ceil_div(dim_expr(cols), self.tile[1]), inputs[0], out)
        if prim.kind == "eltwise":
            op = ops.from_ir(prim.ops[0])
            if op is None:
                raise UnsupportedError(f"`{prim.ops[0]}` in {prim.label} is not in the op table (loom/ops.py)")
            return cost.eltwise(self.arch, op, count, tuple(inputs) or (out,), out)
        key = "transpose" if prim.kind == "transpose" else "copy"
        return cost.datacopy(self.arch, key, count, inputs[0] if inputs else None, out)



def candidate_latency(arch: Arch, candidate: Candidate, heg: HEG) -> Latency:
    return LatencyModel(arch, candidate).build(heg)


def _plain_nest(heg: For) -> list[For]:
    """The loops from `heg` down to a pipe when each holds only the next (or, the last, the pipe), none runs
    to a tile's end or keeps panels, and the pipe multicasts no load; else [] (priced loop by loop). A
    multicast receiver's engine takes the next block only after what precedes it in program order (the
    writer's store of this block, which waits for its compute), and its sender waits for every receiver:
    the group drains each iteration (rope's rect multicast of cos and sin: 113k cycles simulated, 121k
    priced per iteration, 70k across the nest)."""
    nest, loop = [], heg
    while loop.until is None and loop.hoist is None:
        nest.append(loop)
        if isinstance(loop.child, Pipe):
            multicast = any(p.transfer is not None and p.transfer.receivers > 1
                            and not p.transfer.mode.startswith("forward") for p in loop.child.loads)
            return [] if multicast else nest
        if not isinstance(loop.child, For):
            return []
        loop = loop.child
    return []


__all__ = ["Latency", "LatencyModel", "block_bytes", "candidate_latency", "dim_expr", "instruction",
           "instruction_throughput", "tile_bytes", "tiles"]
