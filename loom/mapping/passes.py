"""Reuse across passes: a block that several device loops of the tile body read alike.

A kernel that makes two or three passes over a row (RMSNorm's sum of squares, then the scaled
output; softmax's max, sum and output) reads each block of the row once per pass. When the loops
walk the same dimension with the same block and load the same block in the same iteration, the
row can instead be read once into L1 and every pass read it there: the tile pipe's `keep_` knob
(`loom.model.heg.Keep`), priced by the model (one whole-row read against the per-pass reads, its
L1 against the usable L1) and built by the backend (`loom.backend.split`).

    for tile_n in hl.tile(n):  x[tile_m, tile_n] ...   # pass 1: the kept load
    for tile_n in hl.tile(n):  x[tile_m, tile_n] ...   # pass 2: reads the panel

Two loads match when they read the same tensor (an input: nothing stores it) through offsets and
sizes built the same way from the grid indices, block sizes and their own loop's index.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import affine, arith, memref, scf
from xdsl.ir import Block, BlockArgument, SSAValue

from loom.ir.dialect import CopyOp, SymOp
from loom.ir.loops import until_bounds


@dataclass(frozen=True)
class Passes:
    """One tensor's block read alike by sibling device loops of the tile body: `loads[0]` in
    `loops[0]` may fill a whole-row panel that the later loads' loops read instead."""

    tensor: str
    loops: tuple[scf.ForOp, ...]
    loads: tuple[CopyOp, ...]


def repeated_passes(grid: affine.ParallelOp, outputs: set[str]) -> list[Passes]:
    """Each input tensor whose same block two or more sibling device loops of the tile body load
    (loops over a static extent with the same block size, not to an enclosing tile's end)."""
    loops = [op for op in grid.body.block.ops if isinstance(op, scf.ForOp) and until_bounds(op) is None
             and isinstance(op.ub.owner, arith.CeilDivUIOp) and isinstance(op.ub.owner.lhs.owner, arith.ConstantOp)]
    found: dict[tuple, list[tuple[scf.ForOp, CopyOp]]] = {}
    for loop in loops:
        iv = loop.body.block.args[0]
        for load in [op for op in loop.body.block.ops if isinstance(op, CopyOp) and op.src_space.data == "DRAM"]:
            view = load.source.owner
            if not isinstance(view, memref.SubviewOp) or view.source.name_hint in outputs:
                continue
            key = (_key(loop.ub, iv), view.source.name_hint, str(load.dest.type),
                   tuple(view.static_offsets.get_values()), tuple(view.static_sizes.get_values()),
                   tuple(_key(v, iv) for v in view.offsets), tuple(_key(v, iv) for v in view.sizes))
            if None in key[5] + key[6]:
                continue
            same_loop = [entry for entry in found.get(key, []) if entry[0] is loop]
            if not same_loop:  # one load per loop: a second in the same loop is its own pass's business
                found.setdefault(key, []).append((loop, load))
    return [Passes(key[1], tuple(loop for loop, _ in entries), tuple(load for _, load in entries))
            for key, entries in found.items() if len(entries) > 1]


def _key(value: SSAValue, iv: BlockArgument, depth: int = 0):
    """How an index value is built (the loop's own index as "iv"); None where it is not from grid
    indices, block sizes, constants and + - * ceildiv."""
    if value is iv:
        return "iv"
    if isinstance(value, BlockArgument):
        owner = value.owner.parent_op() if isinstance(value.owner, Block) else None
        return ("grid", value.index) if isinstance(owner, affine.ParallelOp) else None
    op = value.owner
    if isinstance(op, SymOp):
        return ("sym", op.label)
    if isinstance(op, arith.ConstantOp):
        return ("const", op.value.value.data)
    if isinstance(op, (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.CeilDivUIOp)) and depth < 16:
        parts = (_key(op.lhs, iv, depth + 1), _key(op.rhs, iv, depth + 1))
        return None if None in parts else (op.name, *parts)
    return None


__all__ = ["Passes", "repeated_passes"]
