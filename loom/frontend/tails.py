"""Stage 1, tails: Helion's `_mask_to(x, fill)` where a dimension has a tail.

A dimension whose extent is not a multiple of the architecture's block alignment (1000 columns, 32
wide tiles) is padded to whole tiles: the per-core programs compute whole blocks, DRAM holds the
padding as zeros and moves only whole tiles of data. Helion marks where padding would change a
result: before a reduction over a tiled dimension it masks the reduced value to the reduction's
identity (`_mask_to(block, -inf)` before `amax`, `_mask_to(exp(...), 0)` before `sum`). Where a
dimension the value's users reduce over (a reduction's axes, a matrix product's contraction) can
hold padding, that mask becomes a `linalg.generic` whose body is `loom.position_mask` (the
element's global position, the block's offset plus its index, below the real extent: one half-plane
per masked dimension); elsewhere it is the identity, as before: padding in the other dimensions
stays in rows and columns no store writes back.
"""

from __future__ import annotations

import torch
import torch.fx
from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr, IntegerType, f32
from xdsl.dialects.linalg.ops import GenericOp, IteratorType, IteratorTypeAttr, YieldOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineMap

from loom.errors import UnsupportedError
from loom.frontend.compute import MATMULS, broadcast_map, reduced_axes, reduction_input, reduction_op
from loom.frontend.tiles import IDENTITY, Tile, target_name
from loom.ir.dialect import PositionMaskOp


class TailLowering:
    """Tail masks of `KernelLowering` (a mixin: it uses the lowering's builder state)."""

    def tail_mask(self, node: torch.fx.Node, env: dict) -> Tile:
        src: Tile = env[node.args[0]]
        if src is None:  # the operand list Helion made for an Inductor-lowered op (`torch.var`) Loom does not read
            users, seen = set(), list(node.users)
            while seen:  # through Helion's operand lists to the op that reads them
                user = seen.pop()
                if target_name(user) == "_inductor_lowering_extra":
                    seen += list(user.users)
                else:
                    users.add(target_name(user))
            users = sorted(users)
            raise UnsupportedError(f"operation `{', '.join(users) or '?'}` is not supported by Loom yet (Helion lowers "
                                   "it through Inductor); expected it written out from supported ops",
                                   self.k.location(node))
        fill = float(node.args[1])
        source = node.args[0].meta["val"]
        batch = self.batch_positions(node.args[0])
        logical = [s for i, s in enumerate(source.shape) if i not in batch]
        if src.row:
            logical = [1, *logical]
        reduced = _reduced_positions(node)
        bounds = [self._position(size, node) if reduced is None or i - len(logical) in reduced else None
                  for i, size in enumerate(logical) if i not in src.expanded]
        if all(b is None for b in bounds):
            return src  # every dimension is whole tiles: nothing to mask
        offsets = [b[0] if b else self.const(0) for b in bounds]
        # a tail of real extent L in dimension d keeps -p_d + L - 1 >= 0
        keep = [[-1 if d == i else 0 for d in range(len(bounds))] + [b[1] - 1]
                for i, b in enumerate(bounds) if b is not None]
        return self.position_mask(src, offsets, keep, fill, node)

    def position_mask(self, src: Tile, offsets: list[SSAValue], keep: list[list[int]], fill: float,
                      node: torch.fx.Node, bound: Tile | None = None) -> Tile:
        """`src` with `fill` where an element's position (`offsets` plus its index) fails a row of `keep`;
        with `bound`, a tile of data broadcast over src, each row's last coefficient multiplies its value."""
        dtype = src.value.type.element_type
        ssa_dims = [d for i, d in enumerate(src.dims) if i not in src.expanded]
        rank = len(ssa_dims)
        init = self.empty(ssa_dims, dtype)
        inputs, maps = [src.value], [AffineMap.identity(rank)]
        if bound is not None:
            if src.expanded:
                raise UnsupportedError("a mask comparing positions with data on a tile with `None` dims is not "
                                       "supported; expected the comparison on a whole block", self.k.location(node))
            inputs.append(bound.value)
            maps.append(broadcast_map(bound, src.dims))
        body = Block(arg_types=[v.type.element_type for v in inputs] + [dtype])
        bb = Builder(InsertPoint.at_end(body))
        limit = None
        if bound is not None:  # positions are whole numbers: an integer bound meets them as a float
            limit = body.args[1]
            if isinstance(limit.type, IntegerType):
                limit = bb.insert(arith.SIToFPOp(limit, f32)).result
        bb.insert(YieldOp(bb.insert(PositionMaskOp(body.args[0], offsets, keep, fill, limit)).result))
        op = GenericOp(inputs, [init], Region(body), [AffineMapAttr(m) for m in [*maps, AffineMap.identity(rank)]],
                       [IteratorTypeAttr(IteratorType.PARALLEL)] * rank, [init.type])
        masked = self.located(op, node).res[0]
        return Tile(masked, src.dims, src.expanded, src.row)

    def block_offset(self, block) -> SSAValue:
        """The position of a block's first element in its dimension (`tile_idx * tile`); 0 for a block no
        loop tiles (the whole dimension)."""
        if block.block_id not in self.iv_value:
            return self.const(0)
        return self.tile_start(block)

    def masked_block_ids(self) -> set[int]:
        """The blocks a masked reduction runs over (a `_mask_to` whose users reduce along them), tail or
        not: their sizes must divide the padded extent, so that padding inside it is only ever a tail."""
        ids = set()
        for node in [n for g in self.k.graphs() for n in g.nodes if target_name(n) == "_mask_to"]:
            shape = node.args[0].meta["val"].shape
            reduced = _reduced_positions(node)
            for i, size in enumerate(shape):
                expr = size.node.expr if isinstance(size, torch.SymInt) else None
                block = self.sym_of.get(expr) if expr is not None else None
                if block is not None and (reduced is None or i - len(shape) in reduced):
                    ids.add(block.block_id)
        return ids

    def _position(self, size: object, node: torch.fx.Node) -> tuple[SSAValue, int] | None:
        """(offset of the block in the tensor, real extent) of one dimension that can hold padding, else None."""
        if isinstance(size, int) or (isinstance(size, torch.SymInt) and size.node.expr.is_Integer):
            extent = self.whole_extent.get(int(size), int(size))  # a whole dimension (`x[tile_m, :]`) at 0
            return (self.const(0), extent) if extent > 1 and extent % self.alignment else None
        expr = size.node.expr if isinstance(size, torch.SymInt) else size
        block = self.sym_of.get(expr)
        if block is None:
            raise UnsupportedError(f"a masked tile dimension of size {expr} is not a block size of the kernel",
                                   self.k.location(node))
        if block.extent % (block.fixed or self.alignment) == 0:
            return None  # blocks fill the dimension exactly
        return self.block_offset(block), block.extent


_ACCUMULATING = {"aten.addmm.default": 1, "aten.baddbmm.default": 1, "dot": 0}
"""Accumulating matrix products: the argument position of their left operand (the right one follows)."""
_PASS_THROUGH = {"prims.convert_element_type.default", *IDENTITY}


def _reduced_positions(node: torch.fx.Node) -> set[int] | None:
    """The dimensions of a masked value, as negative positions, that its users reduce over: a
    reduction's axes, a matrix product's contraction (the left operand's last dimension, the right
    one's second to last); None where some user needs every dimension masked."""
    positions: set[int] = set()
    for user, operand in _consumers(node):
        name = target_name(user)
        rank = operand.meta["val"].dim()
        if reduction_op(name) is not None and reduction_input(user) is operand:
            positions |= {a % rank - rank for a in reduced_axes(user)}
            continue
        left = 0 if name in MATMULS else _ACCUMULATING.get(name)
        if left is None or operand not in user.args[left:left + 2]:
            return None
        positions.add(-1 if user.args[left] is operand else -2)
    return positions


def _consumers(node: torch.fx.Node) -> list[tuple[torch.fx.Node, torch.fx.Node]]:
    """(user, the operand it reads) of a value, looking through format conversions."""
    out = []
    for user in node.users:
        if target_name(user) in _PASS_THROUGH:
            out += _consumers(user)
        else:
            out.append((user, node))
    return out
