"""Format conversions folded into the ops next to them: on a Tensix a conversion is the unpacker's or
the packer's work, not an op of its own.

`x[tile_m, :].to(torch.float32)` lowers to a generic whose body is one `arith.extf`; as its own op it
would unpack the bf16 block, copy it through the destination register and pack it as fp32, one more
pass over the tile. The unpacker reads bf16 into the source registers exactly, so the consumers of
the widened tile read the bf16 block themselves (the `extf` moved into their bodies, where
`loom.backend.compute_instructions` leaves it to the unpacker). Likewise `(a + b).to(torch.bfloat16)`:
the packer rounds the destination register to the buffer's format as it packs, so the narrowing
generic joins the op that produces its input (the `truncf` at the end of its body). The values are
the same: widening is exact, and the narrowing rounds the same fp32 result once, as before.

Only elementwise and reduction generics take part: a matmul, a copy or a store of the converted tile
keeps the conversion as its own op."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, f32
from xdsl.dialects.linalg.ops import GenericOp, IteratorType, YieldOp
from xdsl.ir import Block, Operation, Region
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from loom.ops import CONVERSIONS


def fold_conversions(module: ModuleOp) -> None:
    """Fold every widening conversion into the generics that read it, then every narrowing conversion
    into the elementwise generic that produces its only input."""
    for op in list(module.walk()):
        if _conversion(op, arith.ExtFOp):
            _widen_in_users(op)
    for op in list(module.walk()):
        if _conversion(op, arith.TruncFOp) and (producer := _sole_elementwise_producer(op)) is not None:
            _round_in_producer(op, producer)


def _conversion(op: Operation, kind: type) -> bool:
    """A generic that only converts its one input elementwise (identity maps) with an op of `kind`."""
    if not isinstance(op, GenericOp) or len(op.inputs) != 1 or len(op.outputs) != 1:
        return False
    body = [o for o in op.body.block.ops if not isinstance(o, YieldOp)]
    return (len(body) == 1 and isinstance(body[0], kind) and body[0].operands[0] is op.body.block.args[0]
            and all(m.data == AffineMap.identity(m.data.num_dims) for m in op.indexing_maps)
            and all(t.data == IteratorType.PARALLEL for t in op.iterator_types))


def _widen_in_users(convert: GenericOp) -> None:
    """Each generic reading `convert`'s result as an input reads `convert`'s input instead, widened in
    its body; `convert` goes when nothing else reads it."""
    source = convert.inputs[0]
    wide = convert.res[0].type.element_type
    for use in list(convert.res[0].uses):
        user = use.operation
        if not isinstance(user, GenericOp) or use.index >= len(user.inputs):
            continue
        block = user.body.block
        old = block.args[use.index]
        new = block.insert_arg(source.type.element_type, use.index)
        extf = arith.ExtFOp(new, wide)
        Rewriter.insert_op(extf, InsertPoint.at_start(block))
        old.replace_all_uses_with(extf.result)
        block.erase_arg(old)
        user.operands[use.index] = source
    if not convert.res[0].uses:
        Rewriter.erase_op(convert)


def _sole_elementwise_producer(convert: GenericOp) -> GenericOp | None:
    """The all-parallel generic computing in fp32 whose result only `convert` reads and whose body ignores
    its output. (A result held in a narrower format, or converted by the producer's own body, was rounded
    once already: `(x * c).to(torch.float16).to(torch.bfloat16)` keeps both roundings.)"""
    producer = convert.inputs[0].owner
    if not isinstance(producer, GenericOp) or len(producer.outputs) != 1 or producer.res[0].uses.get_length() != 1:
        return None
    if any(t.data != IteratorType.PARALLEL for t in producer.iterator_types):
        return None
    yielded = producer.body.block.last_op.operands[0]
    if producer.res[0].type.element_type != f32 or getattr(yielded.owner, "name", None) in CONVERSIONS:
        return None
    if producer.body.block.args[-1].uses:
        return None
    return producer


def _round_in_producer(convert: GenericOp, producer: GenericOp) -> None:
    """`producer` computes into `convert`'s output, rounding its result as the packer does."""
    narrow = convert.res[0].type
    old = producer.body.block
    block = Block(arg_types=[*(a.type for a in old.args[:-1]), narrow.element_type])
    values = dict(zip(old.args, block.args))
    for op in old.ops:
        if isinstance(op, YieldOp):
            rounded = arith.TruncFOp(values[op.operands[0]], narrow.element_type)
            block.add_ops([rounded, YieldOp(rounded.result)])
        else:
            block.add_op(op.clone(value_mapper=values))
    fused = GenericOp(producer.inputs, convert.outputs, Region(block), producer.indexing_maps,
                      producer.iterator_types, [narrow])
    fused.attributes.update(producer.attributes)
    Rewriter.insert_op(fused, InsertPoint.before(convert))
    convert.res[0].replace_all_uses_with(fused.res[0])
    Rewriter.erase_op(convert)
    init = producer.outputs[0].owner
    Rewriter.erase_op(producer)
    if isinstance(init, Operation) and not init.results[0].uses:
        Rewriter.erase_op(init)
