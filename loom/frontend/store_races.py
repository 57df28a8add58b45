"""Stores that every tile of a grid dimension makes to the same block: a race, refused at its line.

The tiles of a launch grid run in parallel (on a GPU as on the cores of a Tensix grid): a store whose
index does not depend on a grid tile, `out[tile_m, :] = ...` in `for tile_m, tile_n in hl.tile([m, n])`,
is written by every `tile_n` in turn, in an order no one chooses, and the kernel's result is whichever
wrote last. The check walks each store's indices back through the ops that compute them (a device loop's
index through its bounds: `hl.tile(tile_m.begin, tile_m.end)` depends on `tile_m`) to the grid's indices.
A grid dimension of one tile cannot race.
"""

from __future__ import annotations

from xdsl.dialects import affine, arith, memref, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineSymExpr

from loom.errors import UnsupportedError
from loom.ir.dialect import WriteOp
from loom.mapping.reuse import index_dependencies


def check_store_races(module: ModuleOp, location) -> None:
    """Refuse the first store that some grid dimension of more than one tile does not index; `location`
    maps a `loom.loc` string to the user's source location."""
    for grid in module.walk():
        if not isinstance(grid, affine.ParallelOp) or "loom.grid" not in grid.attributes:
            continue
        labels = [a.data for a in grid.attributes["loom.grid"].data]
        ivs = list(grid.body.block.args)
        racing = {iv: label for iv, label, trips in zip(ivs, labels, _trips(grid)) if trips != 1}
        for op in grid.walk():
            if not isinstance(op, WriteOp) or not isinstance(op.operands[1].owner, memref.SubviewOp):
                continue
            view = op.operands[1].owner
            used = _reached(list(view.offsets), set(racing))
            missing = [label for iv, label in racing.items() if iv not in used]
            if missing:
                name = view.source.name_hint or "the output"
                raise UnsupportedError(
                    f"this store to `{name}` does not depend on `{missing[0]}`: every `{missing[0]}` tile of the grid "
                    "writes the same block, in parallel (a race; the result would be whichever wrote last); expected "
                    "the store indexed by every tile of the launch grid, or the loop over that dimension inside the "
                    "kernel (`for tile in hl.tile(...)` within the grid loop)",
                    location(op.attributes["loom.loc"].data) if "loom.loc" in op.attributes else None)


def _reached(values: list[SSAValue], targets: set[SSAValue]) -> set[SSAValue]:
    """The `targets` that `values` are computed from (`index_dependencies`, a device loop's index followed
    through its bounds)."""
    found, seen, pending = set(), set(), list(values)
    while pending:
        for arg in index_dependencies(pending.pop()) - seen:
            seen.add(arg)
            loop = arg.owner.parent_op()
            if arg in targets:
                found.add(arg)
            elif isinstance(loop, scf.ForOp) and arg.index == 0:
                pending += [loop.lb, loop.ub, loop.step]
    return found


def _trips(grid: affine.ParallelOp) -> list[int | None]:
    """Each grid dimension's trip count where it is a constant (None: a symbolic count), from the upper
    bounds map (the lower bounds are 0): a constant result, or a symbol bound to a constant operand."""
    lower, upper = grid.lowerBoundsMap.data, grid.upperBoundsMap.data
    operands = grid.operands[lower.num_dims + lower.num_symbols:]  # the upper map's: its dims, then its symbols
    trips = []
    for expr in upper.results:
        if isinstance(expr, AffineConstantExpr):
            trips.append(expr.value)
        elif isinstance(expr, AffineSymExpr):
            trips.append(_constant(operands[upper.num_dims + expr.position]))
        else:
            trips.append(None)
    return trips


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None
