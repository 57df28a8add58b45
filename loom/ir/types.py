"""Small facts about IR values every stage needs: element sizes, dtype names, symbolic shapes, op nesting."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import Attribute, Block, Operation, SSAValue

from loom.errors import UnsupportedError
from loom.ir.dialect import SymOp

ELEMENT_BYTES = {"f32": 4, "bf16": 2, "f16": 2, "i32": 4, "i64": 8}
DTYPE_NAMES = {"f32": "float32", "bf16": "bfloat16", "f16": "float16", "i32": "int32", "i64": "int64"}
DTYPE_BYTES = {DTYPE_NAMES[name]: size for name, size in ELEMENT_BYTES.items()}  # by dtype name (`bfloat16`)


def element_bytes(element_type: Attribute | str) -> int:
    """Bytes of one element of an MLIR element type (`f32`, `bf16`, …)."""
    name = str(element_type)
    if name not in ELEMENT_BYTES:
        raise UnsupportedError(f"no byte size known for element type {name}")
    return ELEMENT_BYTES[name]


def dtype_name(element_type: Attribute | str) -> str:
    """The dtype name the architecture files and per-core programs use (`bf16` -> `bfloat16`)."""
    name = str(element_type)
    if name not in DTYPE_NAMES:
        raise UnsupportedError(f"element type {name} has no dtype name")
    return DTYPE_NAMES[name]


def symbolic_dims(sizes: Sequence[SSAValue], shape: Sequence[int]) -> tuple[int | str, ...]:
    """A memref's shape in source symbols: each static extent as is, each dynamic one (taken in
    order from `sizes`, the values that allocated it) as the label of the `loom.sym` it comes from."""
    dynamic = iter(sizes)
    dims: list[int | str] = []
    for extent in shape:
        if extent != DYNAMIC_INDEX:
            dims.append(extent)
            continue
        value = next(dynamic)
        owner = value.owner
        if isinstance(owner, SymOp):
            dims.append(owner.label)
        else:
            raise UnsupportedError(f"a buffer dimension is neither constant nor a loom.sym ({value})")
    return tuple(dims)


def enclosing_in(op: Operation, block: Block) -> Operation:
    """The op of `block` that contains `op` (the op itself when it is in `block`)."""
    while op.parent_block() is not block:
        op = op.parent_op()
    return op
