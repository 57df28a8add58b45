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


def element_type(dtype: torch.dtype) -> Attribute:
    if dtype not in DTYPES:
        raise UnsupportedError(f"element type {dtype} is not supported (use float32, bfloat16 or float16)")
    return DTYPES[dtype]


def target_name(node: torch.fx.Node) -> str:
    target = node.target
    if isinstance(target, str):
        return target
    name = str(target) if type(target).__name__ == "OpOverload" else getattr(target, "__name__", str(target))
    return name


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


