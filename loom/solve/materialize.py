"""Stage 6b: materialization. Every `loom.sym` becomes its chosen constant and index arithmetic
is folded, leaving a concrete program (`04_selected.mlir`) whose constants are traced back to
their source labels by the `loom.block_sizes` attribute."""

from __future__ import annotations

from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import DictionaryAttr, IndexType, IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation

from loom.ir.dialect import SymOp
from loom.mapping.candidate_ir import candidate_module
from loom.mapping.candidates import Candidate

_FOLD = {
    arith.CeilDivUIOp: lambda a, b: -(-a // b),
    arith.MuliOp: lambda a, b: a * b,
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
}


def _constant(op: Operation) -> int | None:
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def fold_index_arithmetic(module: ModuleOp) -> None:
    """Replace index ops whose operands are all constants by their value."""
    for op in list(module.walk()):
        fold = _FOLD.get(type(op))
        if fold is None or op.result.type != IndexType():
            continue
        values = [_constant(o.owner) if isinstance(o.owner, Operation) else None for o in op.operands]
        if any(v is None for v in values):
            continue
        const = arith.ConstantOp.from_int_and_width(fold(*values), IndexType())
        const.result.name_hint = op.result.name_hint
        op.parent_block().insert_op_before(const, op)
        op.result.replace_all_uses_with(const.result)
        op.detach()
        op.erase()


def materialize(concrete: ModuleOp, candidate: Candidate, block_sizes: dict[str, int]) -> ModuleOp:
    """The selected candidate's program with its block sizes fixed."""
    module = candidate_module(concrete, candidate)
    for sym in [op for op in module.walk() if isinstance(op, SymOp)]:
        value = block_sizes[sym.label]
        const = arith.ConstantOp.from_int_and_width(value, IndexType())
        const.result.name_hint = sym.label
        sym.parent_block().insert_op_before(const, sym)
        sym.res.replace_all_uses_with(const.result)
        sym.detach()
        sym.erase()
    fold_index_arithmetic(module)
    for grid in module.walk():
        if isinstance(grid, affine.ParallelOp):
            grid.attributes["loom.block_sizes"] = DictionaryAttr(
                {k: IntegerAttr(v, i64) for k, v in sorted(block_sizes.items())})
    module.verify()
    return module
