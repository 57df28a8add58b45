"""Stage 5a: the hierarchical execution graph (HEG) of a candidate.

    g ::= pipe(load*, g, store*) | for(i, g) | seq(g, g, ...) | compute* | combine

The HEG of one core's program is read off the concretized (stage 3) IR and the candidate:
- the candidate's temporal loops (one per grid axis, in axis order) repeat the tile body;
- a block of IR (the tile body, a device loop body) is a `pipe` whose load stage holds the
  block's DRAM→L1 copies, whose store stage holds its L1→DRAM copies, and whose middle is the
  `seq` of its compute ops and nested loops;
- temporal hoisting: a DRAM load in a device loop of the tile body whose block does not depend on
  the innermost temporal axis reads the same blocks in every iteration of that temporal loop;
  the loop records it (`Hoist`) so the model may keep the loop's whole panel of that operand in
  L1 across the temporal loop (read once, reused trips - 1 times) at the price of its L1;
- a device loop is `for(ceil(extent / block), pipe(...))`; a loop the candidate splits across a
  line of cores runs its chunk, `for(ceil(ceil(extent / block) / width), ...)`, followed by the
  `combine` of the partial states on the line's root core.
Primitives record what they do (shape in source symbols, bytes, transfer); their latency is
priced by `loom.model.latency` from the architecture description.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field, replace
from typing import Literal

from xdsl.dialects import affine, arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ModuleOp
from xdsl.dialects.linalg.ops import CopyOp as LinalgCopyOp
from xdsl.dialects.linalg.ops import FillOp, GenericOp, IteratorType, MatmulOp, TransposeOp
from xdsl.ir import Block, Operation, SSAValue

from loom.ir.dialect import CopyOp, SymOp, VbAcquireOp, VbBindOp, VbReserveOp
from loom.ir.loops import until_bounds
from loom.ir.types import dtype_name, element_bytes, symbolic_dims
from loom.mapping.candidates import Candidate, Transfer
from loom.mapping.passes import repeated_passes
from loom.mapping.reduction import Split
from loom.mapping.reuse import index_dependencies
from loom.model import expr as E
from loom.ops import CONVERSIONS

Dim = int | str  # a static extent or a loom.sym label


def dim_expr(dim: Dim) -> E.Expr:
    """A dimension as a model expression: a constant or its block-size variable."""
    return E.Const(dim) if isinstance(dim, int) else E.Var(dim)


@dataclass(frozen=True)
class Primitive:
    """One compiler-visible operation: a copy, a matmul, an elementwise or reduction op."""

    kind: str  # "load", "store", "matmul", "eltwise", "reduce", "fill", "transpose", "copy"
    dims: tuple[tuple[Dim, ...], ...]  # shapes it touches (matmul: lhs, rhs; others: its output/input)
    element_bytes: int
    ops: tuple[str, ...] = ()  # elementwise body ops ("math.exp", "arith.subf", …; conversions left out)
    tensor: str = ""  # for copies: the global tensor
    buffer: str = ""  # the L1 buffer written (loads) or read (stores)
    transfer: Transfer | None = None
    loc: str = ""
    dtype: str = ""
    dtypes: tuple[str, ...] = ()  # compute ops: the dtype names of the inputs, then of the output
    row_extent: int = 0  # loads and stores: the global tensor's row length in elements (0: not a 2-D layout)
    same_columns: bool = False  # loads and stores: every core's block starts at the same column
    inside: tuple[int, int] = (1, 1)  # loads: the share of a block's positions inside the tensor (`loom.clip`)
    inside_span: tuple[str, int, int] | None = None  # loads: where that is (`loom.clip_span`; `engine_positions`)
    reads: tuple[str, ...] = ()  # compute ops: the L1 buffers they read
    writes: tuple[str, ...] = ()  # compute ops: the L1 buffers they write

    @property
    def label(self) -> str:
        what = f"{self.kind} {self.tensor}" if self.tensor else (
            f"{self.kind}({'+'.join(self.ops)})" if self.ops else self.kind)
        return f"{what}@{self.loc}" if self.loc else what


# Solver knobs: each 0/1 decision declared once, on the node it belongs to (`knobs`). Three readers
# use the declaration and nothing else: the latency model prices both settings, the L1 constraint
# sizes the knob's buffers (two slots, or the whole panel), and the backend builds them.
TILE_PIPE = "tile"  # the tile body's pipe (its knobs: overlap_load_tile, ...)
KnobKind = Literal["overlap_load", "overlap_store", "hoist", "keep", "balance", "spread", "live"]


@dataclass(frozen=True)
class Knob:
    """One 0/1 solver decision.

    `overlap_load` / `overlap_store`: a pipe's loads (stores) overlap its compute; their buffers
    get two slots. `hoist`: the innermost temporal loop keeps `hoist`'s loads whole in L1.
    `keep`: the tile pipe reads the rows that several passes read once, and the passes read them in
    L1 (`Keep`; its buffers are the first pass's, then the later passes' it replaces).
    `balance`: the cores of a grid axis whose tile's end bounds a device loop take pairs of its
    blocks from both ends (i and n - 1 - i, TTNN's balanced causal split) instead of a range.
    `spread`: a pipe's DRAM reads go over both NoCs, a share of each block's tile rows on the NoC its
    engine does not drive (`loom.mapping.engines.spread_reads`); its buffers are the loads'.
    `live`: a device loop to a tile's end with a position mask computes its score ops on the diagonal on
    live tiles only (`loom.backend.live_tiles`); off, it computes the diagonal block whole, masked, as
    TTNN's causal SDPA does (its baselines leave it off)."""

    name: str
    kind: KnobKind
    buffers: tuple[str, ...]
    hoist: Hoist | None = None
    keep: Keep | None = None

    @property
    def doubles(self) -> bool:
        """Whether the knob, when on, gives its buffers a second slot."""
        return self.kind in ("overlap_load", "overlap_store")


def double_buffered(knobs: list[Knob], values: dict[str, int]) -> set[str]:
    """Buffers the knobs that are on give two slots."""
    return {b for k in knobs if k.doubles and values.get(k.name) for b in k.buffers}


@dataclass
class Compute:
    ops: list[Primitive]


@dataclass
class Pipe:
    name: str
    loads: list[Primitive]
    child: HEG
    stores: list[Primitive]
    spreads: bool = False  # whether its reads may go over both NoCs (`Candidate.spreads`)
    keep: Keep | None = None  # the tile pipe: rows its passes read alike, which it may read once

    @property
    def load_knob(self) -> Knob | None:
        """Whether the loads (and kept rows) overlap the compute (their buffers double-buffered)."""
        kept = self.keep.buffers if self.keep else ()
        return Knob(f"overlap_load_{self.name}", "overlap_load", tuple(p.buffer for p in self.loads) + kept) \
            if self.loads or kept else None

    @property
    def store_knob(self) -> Knob | None:
        """Whether the stores overlap the compute (their buffers double-buffered)."""
        return Knob(f"overlap_store_{self.name}", "overlap_store", tuple(p.buffer for p in self.stores)) \
            if self.stores else None

    @property
    def spread_knob(self) -> Knob | None:
        """Whether the loads' DRAM reads go over both NoCs."""
        return Knob(f"spread_{self.name}", "spread", tuple(p.buffer for p in self.loads)) \
            if self.loads and self.spreads else None


@dataclass(frozen=True)
class Hoist:
    """Loads of a device loop that the enclosing temporal loop may keep in L1 (one knob)."""

    loop: str  # the device loop's index (tile_k_idx)
    extent: int
    block: Dim
    loads: tuple[Primitive, ...]  # the kept loads, one block each
    among: tuple[Primitive, ...] = ()  # every load of the device loop (the engines are numbered over them)

    @property
    def tensors(self) -> tuple[str, ...]:
        return tuple(p.tensor for p in self.loads)

    @property
    def buffers(self) -> tuple[str, ...]:
        return tuple(p.buffer for p in self.loads)

    @property
    def knob(self) -> str:
        return "hoist_" + "_".join(self.tensors)

    @property
    def declaration(self) -> Knob:
        """The knob that keeps these loads' panels in L1."""
        return Knob(self.knob, "hoist", self.buffers, self)

    def panel(self, dims: tuple[Dim, ...]) -> tuple[Dim, ...]:
        """A kept buffer's shape: its block of the device loop widened to the loop's whole extent (the
        data it reads; its L1 footprint counts whole blocks, a tail's padding included)."""
        return tuple(self.extent if d == self.block else d for d in dims)


@dataclass(frozen=True)
class Keep:
    """Rows that sibling device loops of the tile body (passes over one dimension) load alike
    (`loom.mapping.passes`). With the knob on, the tile pipe reads each first pass's load whole, one
    panel of the loop's blocks, and no pass loads it: the passes read block i of the panel."""

    loads: tuple[Primitive, ...]  # the first pass's loads, one block each
    loops: tuple[tuple[int, Dim], ...]  # (extent, block) of each one's loop
    later: tuple[str, ...]  # the buffers of the later passes' loads, which read the panels instead

    @property
    def knob(self) -> str:
        return "keep_" + "_".join(p.tensor for p in self.loads)

    @property
    def buffers(self) -> tuple[str, ...]:
        return tuple(p.buffer for p in self.loads)

    @property
    def declaration(self) -> Knob:
        return Knob(self.knob, "keep", self.buffers + self.later, keep=self)

    @property
    def overlap_knob(self) -> str:
        """The tile pipe's load overlap: on, the rows of the next tile arrive while this one's passes run."""
        return f"overlap_load_{TILE_PIPE}"

    def panels(self) -> list[Primitive]:
        """The whole-row reads: each first load with its loop's block widened to the extent."""
        return [replace(p, dims=(tuple(extent if d == block else d for d in p.dims[0]),))
                for p, (extent, block) in zip(self.loads, self.loops)]


@dataclass(frozen=True)
class Until:
    """A device loop to an enclosing grid tile's end (`hl.tile(0, tile_m.end)`): its trips grow with that
    tile's index; or, `from_start`, one from that tile's start to the extent (`hl.tile(tile_m.begin, n)`):
    they shrink with it, the same counts in the other order. `spatial`: the cores the grid axis is split
    over (each runs a contiguous range)."""

    axis: str
    extent: int  # the loop's own extent
    block: Dim
    spatial: int = 1
    from_start: bool = False
    outer_extent: int = 0  # the enclosing axis's extent (its blocks' count; the loop's own when 0)

    @property
    def outer_blocks_extent(self) -> int:
        return self.outer_extent or self.extent

    @property
    def knob(self) -> str:
        """The knob that balances the axis's cores (`Knob` kind "balance")."""
        return f"balance_{self.axis}"


@dataclass
class For:
    name: str
    trips: tuple[Dim, ...]  # ceil(extent / block) per factor: (extent, block) pairs flattened
    child: HEG
    spatial: int = 1  # temporal loops: cores sharing the axis (trips = ceil(ceil(E/b)/spatial))
    hoist: Hoist | None = None  # the innermost temporal loop: loads it may keep in L1
    until: Until | None = None  # a device loop to an enclosing tile's end

    @property
    def live_knob(self) -> str:
        return live_knob(self.name)


@dataclass
class Seq:
    items: list[HEG] = field(default_factory=list)


@dataclass
class Combine:
    """A split loop's combine: `width - 1` cores send their partial states to the root, which merges
    them (`scheme` sum | max | lse) one partial at a time."""

    split: Split
    states: list[Primitive]  # one per carried buffer (kind "state": its dims and element size)


HEG = Pipe | For | Seq | Compute | Combine


def _element_bytes(value: SSAValue) -> int:
    return element_bytes(value.type.element_type)


def buffer_dims(view: SSAValue) -> tuple[Dim, ...]:
    """Shape of an L1 view in source symbols (through its buffer's storage)."""
    owner = view.owner
    buffer = owner.buffer if isinstance(owner, (VbReserveOp, VbAcquireOp)) else view
    bind = buffer.owner
    sizes = list(bind.memory.owner.sizes) if isinstance(bind, VbBindOp) else list(bind.sizes)
    return symbolic_dims(sizes, view.type.get_shape())


def load_buffer(load: CopyOp) -> str:
    """The label of the L1 buffer a DRAM load fills (a spread knob's `buffers`)."""
    return _buffer_label(load.dest)


def _buffer_label(view: SSAValue) -> str:
    owner = view.owner
    buffer = owner.buffer if isinstance(owner, (VbReserveOp, VbAcquireOp)) else view
    label = getattr(buffer.owner, "label", None)
    return label.data if label is not None else "?"


def _row_extent(subview: memref.SubviewOp) -> int:
    """A global tensor's row length in elements, which sets the stride between the tile ids of its rows in
    DRAM's interleaved layout (0 where its last extent is not static or it is a vector)."""
    shape = subview.source.type.get_shape()
    return shape[-1] if len(shape) >= 2 and shape[-1] > 0 else 0


def _same_columns(subview: memref.SubviewOp) -> bool:
    """Whether an access's column offset depends on no grid index: every core's block starts at the
    same column (a GEMM's A blocks at the K step all cores are on)."""
    dynamic = iter(subview.offsets)
    offsets = [next(dynamic) if o == DYNAMIC_INDEX else o for o in subview.static_offsets.get_values()]
    last = offsets[-1]
    if isinstance(last, int):
        return True
    grid = subview.parent_op()
    while grid is not None and not isinstance(grid, affine.ParallelOp):
        grid = grid.parent_op()
    axes = set(grid.body.block.args) if grid is not None else set()
    return not (index_dependencies(last) & axes)


def _loc(op: Operation) -> str:
    loc = op.attributes.get("loom.loc")
    return loc.data if loc is not None else ""


_TEMPLATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""Each op's Primitive without its transfer: read from the IR once, shared by every candidate's HEG."""


_SKELETONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""Each block's device loops (with their names, trips and `Until`) and the ops that are primitives, read from
the IR once: every candidate's HEG walks them instead of the block's ops."""


def _skeleton(block: Block) -> list[tuple[Operation, object]]:
    found = _SKELETONS.get(block)
    if found is None:
        found = []
        for op in block.ops:
            if isinstance(op, scf.ForOp):
                found.append((op, (op.body.block.args[0].name_hint or "loop", _loop_trips(op), _until(op))))
            elif (template := _primitive(op, {}, {})) is not None:  # loads and stores without a transfer
                found.append((op, template))
        _SKELETONS[block] = found
    return found


def _primitive(op: Operation, transfers: dict[int, Transfer], copy_index: dict[Operation, int]) -> Primitive | None:
    if op not in _TEMPLATES:
        _TEMPLATES[op] = _read_primitive(op)
    template = _TEMPLATES[op]
    if template is not None and template.kind in ("load", "store"):
        return replace(template, transfer=transfers.get(copy_index.get(op)))
    return template


def _read_primitive(op: Operation) -> Primitive | None:
    if isinstance(op, CopyOp):
        load = op.src_space.data == "DRAM"
        l1 = op.dest if load else op.source
        glob = op.source if load else op.dest
        tensor = glob.owner.source.name_hint or "?"
        return Primitive("load" if load else "store", (buffer_dims(l1),), _element_bytes(l1), tensor=tensor,
                         buffer=_buffer_label(l1), loc=_loc(op), dtype=str(l1.type.element_type),
                         row_extent=_row_extent(glob.owner), same_columns=_same_columns(glob.owner),
                         inside=tuple(a.data for a in glob.owner.attributes["loom.clip"]) if load and
                         "loom.clip" in glob.owner.attributes else (1, 1),
                         inside_span=tuple(a.data for a in glob.owner.attributes["loom.clip_span"])
                         if "loom.clip_span" in glob.owner.attributes else None)
    if isinstance(op, MatmulOp):
        lhs, rhs = op.inputs
        return Primitive("matmul", (buffer_dims(lhs), buffer_dims(rhs)), _element_bytes(lhs), loc=_loc(op),
                         dtype=str(lhs.type.element_type), dtypes=_dtypes(op), **_touches(op.inputs, op.outputs))
    if isinstance(op, GenericOp):
        ops = tuple(o.name for o in op.body.block.ops if o.name != "linalg.yield" and o.name not in CONVERSIONS)
        reduce = any(t.data == IteratorType.REDUCTION for t in op.iterator_types)
        source = op.inputs[0] if reduce else op.outputs[0]
        kind = "reduce" if reduce else ("eltwise" if ops else "copy")
        return Primitive(kind, (buffer_dims(source),), _element_bytes(source), ops=ops, loc=_loc(op),
                         dtypes=_dtypes(op), **_touches(op.inputs, op.outputs))
    if isinstance(op, (FillOp, TransposeOp, LinalgCopyOp)):
        kind = {FillOp: "fill", TransposeOp: "transpose", LinalgCopyOp: "copy"}[type(op)]
        out = op.outputs[0] if hasattr(op, "outputs") else op.init
        ins = () if isinstance(op, FillOp) else op.inputs
        return Primitive(kind, (buffer_dims(out),), _element_bytes(out), loc=_loc(op),
                         dtypes=tuple(dtype_name(v.type.element_type) for v in (*ins, out)), **_touches(ins, (out,)))
    return None


def _touches(inputs, outputs) -> dict[str, tuple[str, ...]]:
    """The L1 buffers a compute op reads and writes (by label)."""
    def labels(values) -> tuple[str, ...]:
        return tuple(_buffer_label(v) for v in values if isinstance(v.type, MemRefType))
    return {"reads": labels(inputs), "writes": labels(outputs)}


def _dtypes(op: Operation) -> tuple[str, ...]:
    """Dtype names of a linalg op's tensor inputs, then of its output."""
    values = [v for v in op.inputs if hasattr(v.type, "element_type")] + [op.outputs[0]]
    return tuple(dtype_name(v.type.element_type) for v in values)


def _loop_trips(loop: scf.ForOp) -> tuple[Dim, Dim]:
    """(extent, block) of a device loop `for i in 0..ceil(extent / block)`; of one to an enclosing tile's
    end, `ceil(min(end, extent) / block)`, the most it runs; of one over an enclosing tile, that tile's
    block is the extent (a label)."""
    ub, until = loop.ub.owner, until_bounds(loop)
    if until is not None:
        return until.extent.owner.value.value.data, _dim(until.block)
    if isinstance(ub, arith.CeilDivUIOp):
        return _dim(ub.lhs), _dim(ub.rhs)
    return ub.value.value.data, 1


def _dim(size: SSAValue) -> Dim:
    """A block size: its loom.sym label, or the constant."""
    return size.owner.label if isinstance(size.owner, SymOp) else size.owner.value.value.data


def _until(loop: scf.ForOp) -> Until | None:
    """A loop to an enclosing tile's end: that tile's axis, extent and block."""
    bounds = until_bounds(loop)
    if bounds is None:
        return None
    return Until(loop.attributes["loom.until"].data, bounds.extent.owner.value.value.data, _dim(bounds.outer_block),
                 from_start="loom.from_start" in loop.attributes)


def _block_heg(block: Block, name: str, transfers: dict, copy_index: dict, spreads: bool,
               split: Split | None = None) -> Pipe:
    loads, stores, middle = [], [], Seq()
    pending: list[Primitive] = []
    for op, found in _skeleton(block):
        if isinstance(op, scf.ForOp):
            if pending:
                middle.items.append(Compute(pending))
                pending = []
            iv, trips, until = found
            split_here = split is not None and iv.removesuffix("_idx") == split.loop.name
            middle.items.append(For(iv, trips, _block_heg(op.body.block, iv, transfers, copy_index, spreads),
                                    spatial=split.width if split_here else 1, until=until))
            if split_here:
                middle.items.append(Combine(split, _states(block, split)))
            continue
        prim = replace(found, transfer=transfers.get(copy_index[op])) if found.kind in ("load", "store") else found
        if prim.kind == "load":
            loads.append(prim)
        elif prim.kind == "store":
            stores.append(prim)
        else:
            pending.append(prim)
    if pending:
        middle.items.append(Compute(pending))
    return Pipe(name, loads, middle, stores, spreads)


def build_heg(concrete: ModuleOp, candidate: Candidate) -> HEG:
    """The HEG of one core: the candidate's temporal loops around the tile body's pipe."""
    grid, copy_index = _grid_and_copies(concrete)
    transfers = dict(enumerate(candidate.transfers))
    body: HEG = _block_heg(grid.body.block, TILE_PIPE, transfers, copy_index, candidate.spreads, candidate.split)
    if candidate.hoists and candidate.split is None:
        body.keep = _keep(concrete, grid, candidate, transfers, copy_index)
    for node in nodes(body):
        if isinstance(node, For) and node.until is not None:  # the cores its enclosing tile's axis is split over
            axis = candidate.axis(node.until.axis)
            node.until = replace(node.until, spatial=axis.spatial, outer_extent=axis.extent)
    for name in reversed(candidate.order):
        axis = candidate.axis(name)
        block = axis.block if axis.block else (axis.fixed_block or 1)
        innermost = name == candidate.order[-1] and candidate.split is None and candidate.hoists
        hoist = _hoist(body, name) if innermost else None
        body = For(f"t_{name}", (axis.extent, block), body, spatial=axis.spatial, hoist=hoist)
    return body


_GRIDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""Each module's launch grid and the index of each of its copies, found once for every candidate's HEG."""


def _grid_and_copies(concrete: ModuleOp) -> tuple[affine.ParallelOp, dict[CopyOp, int]]:
    found = _GRIDS.get(concrete)
    if found is None:
        (grid,) = [op for op in concrete.walk() if isinstance(op, affine.ParallelOp)]
        found = _GRIDS[concrete] = grid, {op: i for i, op in enumerate(op for op in grid.walk()
                                                                          if isinstance(op, CopyOp))}
    return found


def _hoist(tile: Pipe, axis: str) -> Hoist | None:
    """The first device loop of the tile body whose loads do not depend on `axis` (the innermost
    temporal loop's axis): those loads may be kept in L1 across it."""
    for item in tile.child.items:
        if not (isinstance(item, For) and isinstance(item.child, Pipe)):
            continue
        loads = [p for p in item.child.loads if p.transfer is not None and axis not in p.transfer.access.depends_on]
        if loads and isinstance(item.trips[0], int):  # not a loop over an enclosing tile
            extent, block = item.trips
            return Hoist(item.name, extent, block, tuple(loads), tuple(item.child.loads))
    return None


_PASSES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""Each tile body's repeated passes (`loom.mapping.passes`), shared by every candidate's HEG."""


def _keep(concrete: ModuleOp, grid: affine.ParallelOp, candidate: Candidate, transfers: dict,
          copy_index: dict) -> Keep | None:
    """The rows the tile body's passes load alike, where the candidate reads them anew for every block of
    its innermost temporal axis (a load that does not depend on it is the hoist knob's)."""
    if grid not in _PASSES:
        fn = next(op for op in concrete.walk() if op.name == "func.func")
        _PASSES[grid] = repeated_passes(grid, {a.data for a in fn.attributes["loom.outputs"].data})
    innermost = candidate.order[-1] if candidate.order else None
    kept = []
    for passes in _PASSES[grid]:
        first, *later = [_primitive(load, transfers, copy_index) for load in passes.loads]
        if first.transfer is not None and innermost in first.transfer.access.depends_on:
            kept.append((first, _loop_trips(passes.loops[0]), tuple(p.buffer for p in later)))
    if not kept:
        return None
    return Keep(tuple(k[0] for k in kept), tuple(k[1] for k in kept), tuple(b for k in kept for b in k[2]))


def _states(block: Block, split: Split) -> list[Primitive]:
    binds = {op.label.data: op for op in block.ops if isinstance(op, VbBindOp)}
    states = []
    for label, role in split.loop.states:
        buffer = binds[label].buffer
        states.append(Primitive("state", (buffer_dims(buffer),), _element_bytes(buffer), ops=(role,), buffer=label,
                                dtype=str(buffer.type.element_type)))
    return states


def knobs(heg: HEG) -> list[Knob]:
    """Every knob declared on `heg`'s nodes, in graph order."""
    out = []
    for node in nodes(heg):
        if isinstance(node, Pipe):
            out += [k for k in (node.load_knob, node.store_knob, node.spread_knob) if k is not None]
            if node.keep is not None:
                out.append(node.keep.declaration)
        elif isinstance(node, For) and node.hoist is not None and isinstance(node.child, Pipe):
            out.append(node.hoist.declaration)
        if isinstance(node, For) and node.until is not None and node.until.spatial > 1:
            out.append(Knob(node.until.knob, "balance", ()))
        if isinstance(node, For) and node.until is not None and masks_positions(node):
            out.append(Knob(node.live_knob, "live", ()))
    return out


def live_knob(loop: str) -> str:
    """The knob that runs the score ops of the loop to a tile's end named `loop` (its variable in the
    per-core programs) on live tiles (`Knob` kind "live")."""
    return f"live_tiles_{loop}"


def masks_positions(loop: For) -> bool:
    """Whether a position mask runs in `loop`'s body (a causal key loop's)."""
    return any(p.ops == ("loom.position_mask",) for n in nodes(loop.child) if isinstance(n, Compute) for p in n.ops)


def nodes(heg: HEG):
    """Every node of `heg`, parents before children (depth first, in order)."""
    stack = [heg]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, Seq):
            stack.extend(reversed(node.items))
        elif isinstance(node, (For, Pipe)):
            stack.append(node.child)


def pretty(heg: HEG, indent: int = 0) -> str:
    pad = "  " * indent
    if isinstance(heg, Combine):
        return (f"{pad}combine {heg.split.loop.combine} of {', '.join(p.buffer for p in heg.states)} "
                f"from {heg.split.width} cores ({heg.split.scheme})")
    if isinstance(heg, Compute):
        return pad + "compute(" + ", ".join(p.label for p in heg.ops) + ")"
    if isinstance(heg, Seq):
        return "\n".join(pretty(i, indent) for i in heg.items) if heg.items else pad + "seq()"
    if isinstance(heg, For):
        extent, block = heg.trips
        per = f" / {heg.spatial} cores" if heg.spatial > 1 else ""
        per += (f" from {heg.until.axis}.begin" if heg.until.from_start else f" up to {heg.until.axis}.end") \
            if heg.until else ""
        hoist = f" [may keep {', '.join(heg.hoist.tensors)} in L1: {heg.hoist.knob}]" if heg.hoist else ""
        return f"{pad}for {heg.name} in ceil({extent}/{block}){per}{hoist}:\n" + pretty(heg.child, indent + 1)
    loads = ", ".join(p.label + (f" [{p.transfer.mode}]" if p.transfer else "") for p in heg.loads) or "-"
    stores = ", ".join(p.label for p in heg.stores) or "-"
    keep = f" [may read {', '.join(p.tensor for p in heg.keep.loads)} once for its passes: {heg.keep.knob}]" \
        if heg.keep else ""
    return (f"{pad}pipe {heg.name}: load({loads}) store({stores}){keep}\n" + pretty(heg.child, indent + 1))


__all__ = ["HEG", "Combine", "Compute", "For", "Hoist", "Keep", "Knob", "Pipe", "Primitive", "Seq", "Until",
           "buffer_dims", "build_heg", "double_buffered", "knobs", "nodes", "pretty"]
