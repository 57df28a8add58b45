"""The MLIR of one candidate: the tile grid tiled over a view of the core array.

The stage-3 `affine.parallel` over tile indices becomes an `affine.parallel` over core
coordinates (one index per view level, `%c_x0`, `%c_y1`, ...) holding each core's storage and,
in axis order, one temporal `scf.for` per grid axis. The tile index of axis a is
`core_a * T_a + t_a` (a core's tiles are contiguous), with `core_a` the core's coordinate over
the levels axis a runs on and `T_a = ceil(ceil(extent_a / block_a) / cores_a)`. Cores past the
last tile skip the body (`scf.if`). DRAM copies carry the transfer mode and the multicast group,
and their reuse: `spatial_reuse` (grid axes whose cores read the same block), `temporal_reuse`
(temporal loops that reread it: a panel the model may keep in L1) and `sequential_reuse`
(enclosing device loops it does not depend on).
"""

from __future__ import annotations

from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import affine, arith, scf
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseIntElementsAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from loom.ir.dialect import CopyOp, MemAllocOp, SemAllocOp, SymOp, VbBindOp
from loom.mapping.candidates import Candidate
from loom.mapping.reduction import Split, split_loop_op
from loom.mapping.views import DIM_NAMES

INDEX = IndexType()


def candidate_module(concrete: ModuleOp, candidate: Candidate) -> ModuleOp:
    """A copy of the stage-3 module with the candidate's spatiotemporal mapping made explicit."""
    module = concrete.clone()
    (grid,) = [op for op in module.walk() if isinstance(op, affine.ParallelOp)]
    syms = {op.label: op.res for op in module.walk() if isinstance(op, SymOp)}
    levels = [(dim, level, size) for axis in candidate.axes for dim, level, size in axis.levels]
    levels += list(candidate.split.levels) if candidate.split else []
    levels.sort()
    core_block = Block(arg_types=[INDEX] * len(levels))
    for (dim, level, _), arg in zip(levels, core_block.args):
        arg.name_hint = f"c_{DIM_NAMES[dim]}{level}"
    coord = {lv: arg for lv, arg in zip(levels, core_block.args)}

    old_body = grid.body.block
    b = Builder(InsertPoint.at_end(core_block))
    for op in list(old_body.ops):  # storage is per core: it stays outside the temporal loops
        if isinstance(op, (MemAllocOp, SemAllocOp, VbBindOp)):
            op.detach()
            b.insert(op)

    def const(value: int) -> SSAValue:
        return b.insert(arith.ConstantOp.from_int_and_width(value, INDEX)).result

    # per axis: its core coordinate, tile count and temporal trip count
    core_of, tiles_of, trips_of = {}, {}, {}
    for axis in candidate.axes:
        core = None
        for dim, level, size in axis.levels:
            here = coord[(dim, level, size)]
            core = here if core is None else b.insert(
                arith.AddiOp(b.insert(arith.MuliOp(core, const(size))).result, here)).result
        if core is None:
            core = const(0)
        block = syms[axis.block] if axis.block else const(axis.fixed_block)
        tiles = b.insert(arith.CeilDivUIOp(const(axis.extent), block)).result
        trips = b.insert(arith.CeilDivUIOp(tiles, const(axis.spatial))).result
        core_of[axis.axis], tiles_of[axis.axis], trips_of[axis.axis] = core, tiles, trips
        if core.owner is not core_block:
            core.name_hint = f"core_{axis.axis}"
        trips.name_hint = f"trips_{axis.axis}"

    split_rank = None  # a core's position in its reduction split group
    for lv in candidate.split.levels if candidate.split else ():
        split_rank = coord[lv] if split_rank is None else b.insert(
            arith.AddiOp(b.insert(arith.MuliOp(split_rank, const(lv[2]))).result, coord[lv])).result

    # temporal loops in axis order; the innermost holds the guarded tile body
    index_of: dict[str, SSAValue] = {}
    builder = b
    loops = []
    for name in candidate.order:
        body = Block(arg_types=[INDEX])
        body.args[0].name_hint = f"t_{name}"
        zero, one = (builder.insert(arith.ConstantOp.from_int_and_width(v, INDEX)).result for v in (0, 1))
        loop = scf.ForOp(zero, trips_of[name], one, [], body)
        builder.insert(loop)
        loops.append(loop)
        builder = Builder(InsertPoint.at_end(body))
        tile = builder.insert(arith.AddiOp(builder.insert(arith.MuliOp(core_of[name], trips_of[name])).result,
                                           body.args[0])).result
        tile.name_hint = f"{name}_idx"
        index_of[name] = tile
    in_range = None
    for name in candidate.order:
        check = builder.insert(arith.CmpiOp(index_of[name], tiles_of[name], "ult")).result
        in_range = check if in_range is None else builder.insert(arith.AndIOp(in_range, check)).result
    then_block = Block()
    builder.insert(scf.IfOp(in_range, [], Region(then_block)))
    labels = [a.data for a in grid.attributes["loom.grid"].data]
    for old_arg, label in zip(old_body.args, labels):
        old_arg.replace_all_uses_with(index_of[label])
    for op in list(old_body.ops):
        op.detach()
        if isinstance(op, affine.YieldOp):
            continue
        then_block.add_op(op)
    then_block.add_op(scf.YieldOp())
    for loop in loops:
        loop.body.block.add_op(scf.YieldOp())
    b.insert(affine.YieldOp.get())

    if candidate.split:
        _split_loop(then_block, candidate.split, split_rank)

    copies = [op for op in then_block.walk() if isinstance(op, CopyOp)]
    for copy, transfer in zip(copies, candidate.transfers):
        copy.attributes["mode"] = StringAttr(transfer.mode)
        copy.attributes["group"] = ArrayAttr([IntegerAttr(g, i64) for g in transfer.group])
        access = transfer.access  # the reuse facts: along which cores, temporal loops and device loops
        reuse = {"spatial": [a.axis for a in candidate.axes if a.axis in access.spatial and a.spatial > 1],
                 "temporal": [f"t_{a}" for a in candidate.order if a in access.spatial],
                 "sequential": list(access.sequential)}
        for kind, names in reuse.items():
            if names:
                copy.attributes[f"{kind}_reuse"] = ArrayAttr([StringAttr(n) for n in names])

    n = len(levels)
    groups = DenseIntElementsAttr.from_list(VectorType(i32, [max(n, 1)]), [1] * max(n, 1))
    cores = affine.ParallelOp.create(
        operands=[],
        properties={
            "reductions": ArrayAttr([]),
            "lowerBoundsMap": AffineMapAttr(AffineMap(0, 0, tuple(AffineExpr.constant(0) for _ in levels))),
            "lowerBoundsGroups": groups if n else DenseIntElementsAttr.from_list(VectorType(i32, [0]), []),
            "upperBoundsMap": AffineMapAttr(AffineMap(0, 0, tuple(AffineExpr.constant(s) for _, _, s in levels))),
            "upperBoundsGroups": groups if n else DenseIntElementsAttr.from_list(VectorType(i32, [0]), []),
            "steps": ArrayAttr([IntegerAttr(1, i64)] * n),
        },
        regions=[Region(core_block)],
    )
    cores.attributes["loom.candidate"] = StringAttr(candidate.name)
    cores.attributes["loom.view"] = StringAttr(candidate.view.name)
    grid.parent_block().insert_op_before(cores, grid)
    grid.detach()
    grid.erase(safe_erase=False)
    module.verify()
    return module


def _split_loop(body: Block, split: Split, core: SSAValue) -> None:
    """The split loop runs the core's chunk `[core * T, min((core + 1) * T, n))`, T = ceil(n / width),
    and says how its partial states combine."""
    loop = split_loop_op(body, split)
    b = Builder(InsertPoint.before(loop))

    def const(value: int) -> SSAValue:
        return b.insert(arith.ConstantOp.from_int_and_width(value, INDEX)).result

    chunk = b.insert(arith.CeilDivUIOp(loop.ub, const(split.width))).result
    chunk.name_hint = f"chunk_{split.loop.name}"
    start = b.insert(arith.MuliOp(core, chunk)).result
    stop = b.insert(arith.MinUIOp(b.insert(arith.AddiOp(start, chunk)).result, loop.ub)).result
    loop.operands = [start, stop, loop.step]
    loop.attributes["loom.split"] = StringAttr(f"{split.width} cores ({split.scheme} to core 0, {split.loop.combine})")
