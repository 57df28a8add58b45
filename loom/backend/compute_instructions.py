"""One linalg op of the concretized IR as its per-core compute instruction (`loom.backend.program`):
matmul, fill, transpose, copy, and a `linalg.generic` as its op-table entry (`loom.ops`): an
elementwise op (its second operand broadcast by row, column or scalar, or a constant), a row
reduction, or a tail mask. Format conversions in a body are the unpacker's and packer's, not
instructions."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.dialects.linalg.ops import CopyOp as LinalgCopyOp
from xdsl.dialects.linalg.ops import FillOp, GenericOp, IteratorType, MatmulOp, TransposeOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from loom import ops
from loom.backend import program as P
from loom.errors import UnsupportedError
from loom.ir.dialect import PositionMaskOp


def compute_instruction(op: Operation, ref: Callable[[SSAValue], P.Ref], index: Callable[[SSAValue], P.Affine],
                        tile_rows: int) -> object:
    """The instruction of `op`; `ref` gives an operand's block, `index` an index value as an affine
    expression of the loop variables (a tail mask's offsets)."""
    if isinstance(op, MatmulOp):
        a, b = op.inputs
        m = a.type.get_shape()[-2]
        rows_valid = m if 0 < m < tile_rows else None
        return P.Matmul(ref(a), ref(b), ref(op.outputs[0]), accumulate=True, rows_valid=rows_valid)
    if isinstance(op, FillOp):
        value = op.inputs[0].owner.value.value.data
        return P.Fill(ref(op.outputs[0]), float(value))
    if isinstance(op, TransposeOp):
        return P.Transpose(ref(op.inputs[0]), ref(op.outputs[0]))
    if isinstance(op, LinalgCopyOp):
        return P.Copy(ref(op.inputs[0]), ref(op.outputs[0]))
    return _generic(op, ref, index)


def _generic(op: GenericOp, ref: Callable[[SSAValue], P.Ref], index: Callable[[SSAValue], P.Affine]) -> object:
    """An elementwise or row-reduction generic as its op-table instruction (format conversions
    in the body are the unpacker's and packer's, not instructions)."""
    body = [o for o in op.body.block.ops if o.name != "linalg.yield" and o.name not in ops.CONVERSIONS]
    out = op.outputs[0]
    reduction = any(t.data == IteratorType.REDUCTION for t in op.iterator_types)
    if not body:
        return P.Copy(ref(op.inputs[0]), ref(out))
    entry = ops.from_ir(body[0].name, reduction) if len(body) == 1 else None
    if entry is None:  # stage 1's op check refuses these first (build() locates it all the same)
        raise UnsupportedError(f"elementwise body {[o.name for o in body]} has no per-core form")
    if entry.form == "reduce":
        return P.Reduce(entry.name, ref(op.inputs[0]), ref(out))
    if entry.form == "mask":
        mask = _mask(body[0], ref(op.inputs[0]), ref(out), index)
        if body[0].bound is None:
            return mask
        arg = _unconverted(body[0].bound)  # the generic's second input, the data the positions meet
        maps = [m.data for m in op.indexing_maps]
        if _repeat(maps[arg.index], maps[-1], out.type.get_shape()) != 1:
            raise UnsupportedError("a mask comparing positions with data that lacks a leading dimension of the "
                                   "tile is not supported; expected the data indexed by every leading dimension")
        return replace(mask, data=ref(op.inputs[arg.index]), data_bcast=_bcast(maps[arg.index], maps[-1]))
    if entry.form == "unary":
        return P.Unary(entry.name, ref(op.inputs[0]), ref(out))
    constant = [o for o in map(_unconverted, body[0].operands) if not isinstance(o, BlockArgument)]
    if constant:
        value = float(constant[0].owner.value.value.data)
        if entry.name == "mul":
            return P.Unary("scale", ref(op.inputs[0]), ref(out), scale=value)
        reverse = not isinstance(_unconverted(body[0].operands[0]), BlockArgument)  # `c - x`: constant first
        return P.Scalar(entry.name, ref(op.inputs[0]), ref(out), value, reverse)
    maps = [m.data for m in op.indexing_maps]
    a, b = op.inputs
    if maps[0] != maps[2] and maps[1] == maps[2] and entry.name in _COMMUTATIVE:
        a, b, maps = b, a, [maps[1], maps[0], maps[2]]  # `bias[None, :] + x`: the broadcast one second
    if maps[0] != maps[2]:
        raise UnsupportedError(f"`{entry.name}` broadcasting its first operand is not supported; expected the "
                               "full tile first (write `x - m[:, None]`, not `m[:, None] - x`)")
    _check_constant_indices(maps[1], b.type.get_shape())
    bcast = _bcast(maps[1], maps[2])
    repeat = _repeat(maps[1], maps[2], out.type.get_shape()) if bcast in ("none", "col") else 1
    return P.Binary(entry.name, ref(a), ref(b), ref(out), bcast, repeat=repeat)


def _mask(body: PositionMaskOp, src: P.Ref, dst: P.Ref, index: Callable[[SSAValue], P.Affine]) -> P.Mask:
    """A position mask on a block laid out as the buffers are: a 1-D tile is a column (its dimension
    the rows), a 2-D one rows x columns; leading dimensions of a higher rank must not take part."""
    starts = [index(v) for v in body.offsets]
    rows = body.half_planes()
    data = tuple(row.pop() for row in rows) if body.bound is not None else ()  # each row's data coefficient
    fill = body.fill.value.data
    if len(starts) == 1:
        return P.Mask(src, dst, fill, starts[0], 0, tuple((a, 0, k) for a, k in rows), data_coeffs=data)
    if any(any(row[:-3]) for row in rows):
        raise UnsupportedError("a mask on a leading dimension of a tile of rank 3 or more is not supported; "
                               "expected tails and positions in the last two dimensions")
    return P.Mask(src, dst, fill, starts[-2], starts[-1], tuple(tuple(row[-3:]) for row in rows), data_coeffs=data)


_COMMUTATIVE = {"add", "mul", "max", "min"}


def _bcast(operand: AffineMap, out: AffineMap) -> str:
    """How a binary op's second operand broadcasts over its (row, column) tile dimensions: "none",
    "col" (a column vector: one value per row), "row" (one value per column) or "scalar"."""
    if operand == out:
        return "none"
    used = {e.position for e in operand.results if isinstance(e, AffineDimExpr)}
    row, col = out.num_dims - 2, out.num_dims - 1
    return {(True, True): "none", (True, False): "col", (False, True): "row", (False, False): "scalar"}[
        (row in used, col in used)]


def _check_constant_indices(operand: AffineMap, shape: tuple[int, ...]) -> None:
    """An operand's indexing map reads a dimension at a constant position only where it has one element."""
    for expr, extent in zip(operand.results, shape):
        if isinstance(expr, AffineConstantExpr) and extent != 1:
            size = "a block size" if extent == DYNAMIC_INDEX else f"{extent} elements"
            raise UnsupportedError(f"this broadcast reads the first element of a dimension of {size} of an operand "
                                   "(a reduction kept with keepdim, then indexed with None, over a tile with a "
                                   "leading dimension?): not supported yet; expected the operand broadcast along "
                                   "dimensions of one element")


def _repeat(operand: AffineMap, out: AffineMap, shape: tuple[int, ...]) -> int:
    """How many times an operand's block stands down the rows of a tile of `shape` whose leading
    dimensions (all but the last two, folded into the rows outermost first) it lacks: the product
    of their extents. The operand's block repeats whole only when every leading dimension it has
    (of more than one element) lies inside the ones it lacks."""
    used = {e.position for e in operand.results if isinstance(e, AffineDimExpr)}
    lacked = [d for d in range(out.num_dims - 2) if d not in used]
    if not lacked:
        return 1
    if any(shape[d] == DYNAMIC_INDEX for d in lacked):
        raise UnsupportedError("broadcasting over a leading dimension of a tile that is a block size is not "
                               "supported; expected a whole dimension (`x[tile, :, ...]`) or a block of one")
    if any(d not in lacked and d < max(lacked) and shape[d] != 1 for d in range(out.num_dims - 2)):
        raise UnsupportedError("broadcasting over a leading dimension of a tile inside another leading dimension "
                               "of more than one element is not supported; expected the broadcast dimensions "
                               "outermost")
    return math.prod(shape[d] for d in lacked)


def _unconverted(value: SSAValue) -> SSAValue:
    """A body operand before any format conversion: a block argument (a tile) or a constant."""
    while not isinstance(value, BlockArgument) and value.owner.name in ops.CONVERSIONS:
        value = value.owner.operands[0]
    return value
