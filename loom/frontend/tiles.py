"""Shared vocabulary of the stage-1 lowering: tile values, element types, FX target names."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.fx
from xdsl.dialects.builtin import IndexType, bf16, f16, f32, i32
from xdsl.ir import Attribute, SSAValue

from loom.errors import UnsupportedError

INDEX = IndexType()
IDENTITY = {"_mask_to", "_new_var"}  # FX targets that pass their tile through (a `_mask_to` where nothing has a tail)

DTYPES: dict[torch.dtype, Attribute] = {
    torch.float32: f32, torch.bfloat16: bf16, torch.float16: f16, torch.int32: i32, torch.int64: i32,
}
"""Element types on the device. An int64 tensor (PyTorch's default for indices and labels) is held as
int32 tiles, as TTNN holds it (Tenstorrent tiles have no 64-bit format); `loom run` refuses values
that do not fit."""

HELD_AS: dict[torch.dtype, torch.dtype] = {
    torch.int16: torch.int32, torch.int8: torch.int32, torch.uint8: torch.int32,
    torch.float8_e4m3fn: torch.bfloat16, torch.float8_e5m2: torch.bfloat16,
}
"""Argument types Loom's programs hold in a wider tile format that carries every value exactly (the host
converts them when it lays the tensor out, as `ttnn.from_torch` converts to a dtype it is given): an 8- or
16-bit integer as int32, an fp8 number as bfloat16. The device moves the wider tiles, so a kernel reading
them is priced at 4 or 2 bytes an element (Blackhole's unpacker reads fp8_e4m3 and Wormhole's int8
natively; Loom does not use those formats yet). Inside the loop a cast to an fp8 type rounds to its values
and keeps them in the wider format (`compute.rounded_to_held`); the narrow integer types are refused there
(`element_type`): a cast to them would wrap in a format the program does not hold."""


def element_type(dtype: torch.dtype) -> Attribute:
    """The tile element type of a value computed in the loop."""
    if dtype not in DTYPES:
        held = f"; {dtype} is only read from arguments (held as {HELD_AS[dtype]})" if dtype in HELD_AS else ""
        raise UnsupportedError(f"element type {dtype} is not supported in the loop (use float32, bfloat16 or "
                               f"float16){held}")
    return DTYPES[dtype]


def argument_type(dtype: torch.dtype) -> Attribute:
    """The tile element type an argument tensor of `dtype` is held in on the device."""
    return element_type(HELD_AS.get(dtype, dtype))


def target_name(node: torch.fx.Node) -> str:
    target = node.target
    if isinstance(target, str):
        return target
    name = str(target) if type(target).__name__ == "OpOverload" else getattr(target, "__name__", str(target))
    return name


def ancestors(node: torch.fx.Node):
    """`node` and every FX node it is computed from, transitively, each once."""
    seen, stack = set(), [node]
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            yield n
            stack.extend(n.all_input_nodes)


@dataclass
class Tile:
    """A tile value during lowering: its SSA tensor and its logical shape.

    `expanded` lists logical dims that are unit dims added by `x[:, None]` and
    absent from the SSA tensor; broadcasting consumers index around them.
    `row`: a rank-1 value (Helion sees `[n]`) held as a 1 x n row, read from a rank-1 tensor laid out
    as a row (`w[tile_n]` later broadcast with `[None, :]`); `dims` are the row's `[1, n]`.
    """

    value: SSAValue
    dims: list  # each: int (static) or BlockInfo (the block size of that tile)
    expanded: tuple[int, ...] = ()
    row: bool = False


