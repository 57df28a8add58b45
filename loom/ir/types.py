"""Small facts about IR values every stage needs: element sizes, dtype names, op nesting."""

from __future__ import annotations

from xdsl.ir import Attribute, Block, Operation

from loom.errors import UnsupportedError

ELEMENT_BYTES = {"f32": 4, "bf16": 2, "f16": 2, "i32": 4, "i64": 8}
DTYPE_NAMES = {"f32": "float32", "bf16": "bfloat16", "f16": "float16", "i32": "int32", "i64": "int64"}


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


def enclosing_in(op: Operation, block: Block) -> Operation:
    """The op of `block` that contains `op` (the op itself when it is in `block`)."""
    while op.parent_block() is not block:
        op = op.parent_op()
    return op
