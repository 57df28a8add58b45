"""Stage 1, scalar positions: the index entries that pick one position (`b.begin`, `t.id`, a grid index,
`h.begin // group`, `min(t.begin + 64, n) - 1`) as `arith` index values, and the values each can take.

An entry is an FX node of Helion's scalar arithmetic (`operator.add` on a `tile_begin`), or a symbol
expression Helion keeps whole (`_get_symnode(Min(128, u9 + 64))`, its symbols a tile's `.begin` or `.id`,
a grid index, a block size or a scalar argument). Both must be affine in the tile indices: sums,
differences, multiples and floor divisions by integers. A `min` or `max` is affine where one of its
operands is the least (greatest) for every tile, known from their spans: `min(t.begin + 64, n)` with
`n` a multiple of 64 is `t.begin + 64`.

A span is (least, greatest, step): every value is the least plus a multiple of the step (0: one value).
"""

from __future__ import annotations

import math

import sympy
import torch
import torch.fx
from torch.utils._sympy.functions import FloorDiv
from xdsl.dialects import arith
from xdsl.ir import SSAValue

from loom.errors import DataDependentIndexError, NonAffineIndexError
from loom.frontend.head_groups import DIVIDED, grouped_index
from loom.frontend.helion import BlockInfo
from loom.frontend.tiles import ancestors, target_name
from loom.mapping.block_sizes import padded_extent

Span = tuple[int, int, int]
_INDEX_ARITH = {"add": arith.AddiOp, "sub": arith.SubiOp, "mul": arith.MuliOp, "floordiv": arith.FloorDivSIOp}
_SYMBOLIC = ("_get_symnode", "aten.sym_size.int")
_DATA = "this index is computed from tensor data; Loom needs indices that are affine in the tile indices"


class ScalarLowering:
    """Scalar positions of `KernelLowering` (a mixin: it uses the lowering's builder state)."""

    def grid_block(self, node: torch.fx.Node) -> BlockInfo | None:
        """The block of `for i in hl.grid(n)` whose index `node` is (a scalar, as `tile.begin` is), else None."""
        val = node.meta.get("val")
        block_id = self.k.grid_indices.get(val.node.expr) if isinstance(val, torch.SymInt) else None
        block = self.k.blocks.get(block_id) if block_id is not None else None
        return block if block is not None and block.block_id in self.iv_value else None

    def scalar_index(self, node: object, user: torch.fx.Node) -> SSAValue:
        """A scalar position: an affine expression of tile starts and ids, block sizes and integers."""
        if isinstance(node, int):
            return self.const(node)
        if not isinstance(node, torch.fx.Node) or isinstance(node.meta.get("val"), torch.Tensor):
            raise DataDependentIndexError(_DATA, self.k.location(user))
        name = target_name(node)
        grouped = grouped_index(self.k, node)
        if grouped is not None and self.groups.get(grouped[0]) == grouped[1]:  # `h // group`, `h % group`
            return (self.group_iv if grouped[2] == DIVIDED else self.in_group_iv)[grouped[0]]
        if name == "tile_begin":
            return self.tile_start(self.block_of_symint(node.args[0], user))
        if name == "tile_id":  # `tile.id`: the tile's index, begin // block size, for a loop from 0
            return self.iv_value[self._id_block(self.block_of_symint(node.args[0], user), user).block_id]
        if name in _SYMBOLIC:
            grid = self.grid_block(node)
            if grid is not None:
                return self.tile_start(grid)
            expr = node.meta["val"].node.expr
            if expr in self.sym_of:
                return self.size_value[self.block_of_symint(node, user).block_id]
            return self.symbolic_index(expr, user)
        if any(isinstance(n.meta.get("val"), torch.Tensor) and target_name(n) != "_host_tensor"
               for n in ancestors(node)):
            raise DataDependentIndexError(_DATA, self.k.location(user))
        lhs, rhs = (node.args + (None, None))[:2]
        constant_operand = isinstance(lhs, int) or isinstance(rhs, int)
        if name not in _INDEX_ARITH or (name in ("mul", "floordiv") and not constant_operand) \
                or (name == "floordiv" and not isinstance(rhs, int)):
            raise self._not_affine(getattr(node.meta.get("val"), "node", node), user)
        op = _INDEX_ARITH[name](self.scalar_index(lhs, user), self.scalar_index(rhs, user))
        return self.b.insert(op).result

    def affine_index(self, node: object, user: torch.fx.Node) -> SSAValue:
        """`scalar_index` of a position the per-core programs compute from their loop indices (a pick's, a
        shifted tile's): a floor division in it (`t.begin // 2`) is refused at the user's line (a head group's
        `h // group` is an axis of its own, not a division)."""
        value = self.scalar_index(node, user)
        stack = [value]
        while stack:
            op = stack.pop().owner
            if isinstance(op, arith.FloorDivSIOp):
                raise self._not_affine(getattr(getattr(node, "meta", {}).get("val"), "node", node), user)
            if isinstance(op, (arith.AddiOp, arith.SubiOp, arith.MuliOp)):
                stack += [op.lhs, op.rhs]
        return value

    def symbolic_index(self, expr: object, user: torch.fx.Node) -> SSAValue:
        """A symbol expression Helion keeps whole, as index arithmetic (see the module)."""
        if isinstance(expr, sympy.Integer):
            return self.const(int(expr))
        if isinstance(expr, sympy.Symbol):
            return self._symbol_index(expr, user)
        if isinstance(expr, sympy.Mul):
            return self._scaled_index(expr, user)
        if isinstance(expr, sympy.Add):
            terms = [self._scaled_index(a, user) for a in expr.args]
            total = terms[0]
            for term in terms[1:]:
                total = self.b.insert(arith.AddiOp(total, term)).result
            return total
        if isinstance(expr, FloorDiv) and expr.args[1].is_Integer:
            op = arith.FloorDivSIOp(self.symbolic_index(expr.args[0], user), self.const(int(expr.args[1])))
            return self.b.insert(op).result
        if isinstance(expr, (sympy.Min, sympy.Max)):
            return self.symbolic_index(self._bound_operand(expr, user), user)
        raise self._not_affine(expr, user)

    def scalar_span(self, node: object) -> Span | None:
        """The span of a scalar position over the kernel's tiles (see the module), or None for a form
        `scalar_index` would not take."""
        if isinstance(node, int):
            return node, node, 0
        name = target_name(node) if isinstance(node, torch.fx.Node) else ""
        if name in ("tile_begin", "tile_id"):
            size = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) else None
            block = self.sym_of.get(size.node.expr) if isinstance(size, torch.SymInt) else None
            return None if block is None else self._tile_span(block, name.removeprefix("tile_"))
        if name in _SYMBOLIC and isinstance(node.meta.get("val"), torch.SymInt):
            return self.symbolic_span(node.meta["val"].node.expr)
        if name not in _INDEX_ARITH or len(node.args) != 2:
            return None
        spans = [self.scalar_span(a) for a in node.args]
        return None if None in spans else _combined(name, spans, node.args)

    def symbolic_span(self, expr: object) -> Span | None:
        """The span of a symbol expression (`symbolic_index`'s forms), or None."""
        if isinstance(expr, sympy.Integer):
            return int(expr), int(expr), 0
        if isinstance(expr, sympy.Symbol):
            return self._symbol_span(expr)
        if isinstance(expr, (sympy.Add, sympy.Mul)):
            spans = [self.symbolic_span(a) for a in expr.args]
            if None in spans:
                return None
            name = "add" if isinstance(expr, sympy.Add) else "mul"
            if name == "mul" and sum(s[2] != 0 for s in spans) > 1:
                return None  # a product of two variables
            total = spans[0]
            for span in spans[1:]:
                total = _combined(name, [total, span], [None if total[2] else total[0], None if span[2] else span[0]])
            return total
        if isinstance(expr, FloorDiv) and expr.args[1].is_Integer:
            span = self.symbolic_span(expr.args[0])
            return None if span is None else _combined("floordiv", [span, (0, 0, 0)], [None, int(expr.args[1])])
        if isinstance(expr, (sympy.Min, sympy.Max)):
            chosen = self._bound_operand(expr, None, refuse=False)
            return None if chosen is None else self.symbolic_span(chosen)
        return None

    def block_of_symint(self, node: torch.fx.Node, user: torch.fx.Node) -> BlockInfo:
        val = node.meta.get("val")
        expr = val.node.expr if isinstance(val, torch.SymInt) else None
        block = self.sym_of.get(expr)
        if block is None or block.block_id not in self.iv_value:
            raise NonAffineIndexError(
                f"index `{expr}` is not a tile of an enclosing hl.tile loop", self.k.location(user)
            )
        return block

    # ---------------------------------------------------------------- helpers
    def _scaled_index(self, expr: object, user: torch.fx.Node) -> SSAValue:
        """A term of a sum: an integer times a symbol expression (`64 * u9`), or the expression alone."""
        if isinstance(expr, sympy.Mul):
            coeff, rest = expr.as_coeff_Mul()
            if not coeff.is_Integer or not rest.free_symbols or rest == expr:  # (a product of two symbols)
                raise self._not_affine(expr, user)
            return self.b.insert(arith.MuliOp(self.symbolic_index(rest, user), self.const(int(coeff)))).result
        return self.symbolic_index(expr, user)

    def _symbol_index(self, symbol: sympy.Symbol, user: torch.fx.Node) -> SSAValue:
        block = self.sym_of.get(symbol)
        if block is not None:
            return self.size_value[block.block_id]
        if symbol in self.k.grid_indices:
            return self.tile_start(self.k.blocks[self.k.grid_indices[symbol]])
        if symbol in self.k.tile_scalars:
            kind, block_id = self.k.tile_scalars[symbol]
            block = self._id_block(self.k.blocks[block_id], user) if kind == "id" else self.k.blocks[block_id]
            return self.iv_value[block.block_id] if kind == "id" else self.tile_start(block)
        value = self.k.scalars.get(str(symbol))
        if isinstance(value, int) and not isinstance(value, bool):
            return self.const(value)
        raise self._not_affine(symbol, user)

    def _symbol_span(self, symbol: sympy.Symbol) -> Span | None:
        block = self.sym_of.get(symbol)
        if block is not None:  # a block size: at most the extent in whole tiles (`block_sizes`)
            top = padded_extent(block.extent, self.alignment)
            return (block.fixed, block.fixed, 0) if block.fixed else (self.alignment, top, self.alignment)
        if symbol in self.k.grid_indices:
            return 0, self.k.blocks[self.k.grid_indices[symbol]].extent - 1, 1
        if symbol in self.k.tile_scalars:
            kind, block_id = self.k.tile_scalars[symbol]
            return self._tile_span(self.k.blocks[block_id], kind)
        value = self.k.scalars.get(str(symbol))
        return (value, value, 0) if isinstance(value, int) and not isinstance(value, bool) else None

    def _tile_span(self, block: BlockInfo, kind: str) -> Span | None:
        """The span of a tile's `.begin` or `.id` (a loop from 0 or a grid tile only)."""
        if block.within is not None or block.from_begin or block.bounded_by is not None:
            return None
        step = block.fixed or self.alignment  # a block size the solver chooses is a multiple of the alignment
        last = max(0, -(-block.extent // step) - 1)
        return (0, last * step, step) if kind == "begin" else (0, last, 1)

    def _id_block(self, block: BlockInfo, user: torch.fx.Node) -> BlockInfo:
        if block.within is not None or block.from_begin:
            raise NonAffineIndexError(f"`{block.label}.id` of a loop from an enclosing tile's start is not "
                                      "supported yet; expected the id of a tile from 0", self.k.location(user))
        return block

    def _bound_operand(self, expr: sympy.Min | sympy.Max, user: torch.fx.Node | None,
                       refuse: bool = True) -> object | None:
        """The operand of a `min` (`max`) that is the least (greatest) for every tile, from the spans."""
        spans = [self.symbolic_span(a) for a in expr.args]
        if None not in spans:
            for arg, span in zip(expr.args, spans):
                others = [s for s in spans if s is not span]
                if isinstance(expr, sympy.Min) and all(span[1] <= s[0] for s in others):
                    return arg
                if isinstance(expr, sympy.Max) and all(span[0] >= s[1] for s in others):
                    return arg
        if not refuse:
            return None
        raise NonAffineIndexError(f"index `{expr}` takes its {'least' if isinstance(expr, sympy.Min) else 'greatest'}"
                                  " operand, which is not the same one for every tile: not affine in the tile "
                                  "indices", self.k.location(user))

    def _not_affine(self, expr: object, user: torch.fx.Node) -> NonAffineIndexError:
        return NonAffineIndexError(f"index `{expr}` is not affine in the tile indices (allowed: tile starts and ids, "
                                   "grid indices and integers combined with +, -, × constant, // constant)",
                                   self.k.location(user))


def _combined(name: str, spans: list[Span], args) -> Span | None:
    """The span of `a <name> b` from theirs; `args` the operands where they are integers."""
    (lo1, hi1, st1), (lo2, hi2, st2) = spans
    if name == "add":
        return lo1 + lo2, hi1 + hi2, math.gcd(st1, st2)
    if name == "sub":
        return lo1 - hi2, hi1 - lo2, math.gcd(st1, st2)
    if name == "mul" and any(isinstance(a, int) for a in args):
        k, (lo, hi, st) = (args[1], spans[0]) if isinstance(args[1], int) else (args[0], spans[1])
        return min(lo * k, hi * k), max(lo * k, hi * k), abs(st * k)
    if name == "floordiv" and isinstance(args[1], int) and args[1] > 0:
        k = args[1]
        return lo1 // k, hi1 // k, st1 // k if st1 % k == 0 else 1
    return None
