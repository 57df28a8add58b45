"""Stage 1, computation: torch ops on tiles -> linalg on tensors.

`acc + a @ b` (and `acc + (a @ b).float()`) is one accumulating `linalg.matmul`; elementwise
torch ops are `linalg.generic` with numpy broadcasting maps; row reductions are generics with a
reduction iterator; `x[:, None]` is a lazy unit dimension that broadcasting consumers index around.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.fx
from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr, DenseArrayBase, IntegerType, bf16, f16, f32, i64
from xdsl.dialects.linalg.ops import GenericOp, IteratorType, IteratorTypeAttr, MatmulOp, TransposeOp, YieldOp
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from loom import ops
from loom.errors import UnsupportedError
from loom.frontend.positions import Count
from loom.frontend.tiles import HELD_AS, IDENTITY, Tile, element_type, target_name


def elementwise_op(name: str) -> ops.Op | None:
    """The op-table entry of an elementwise ATen target (None: not elementwise)."""
    op = ops.from_aten(name)
    return op if op is not None and op.form in ("unary", "binary") and op.ir is not None else None


_MEANS = {"aten.mean.dim"}
MATMULS = {"aten.mm.default", "aten.bmm.default", "aten.mm.dtype", "aten.bmm.dtype"}
"""Matrix products (`a @ b`, `torch.bmm(a, b, torch.float32)`); a bmm of batch tiles is a 2-D product per core."""
_LOGICAL = {"aten.bitwise_not.default": "not", "aten.logical_not.default": "not",
            "aten.bitwise_and.Tensor": "mul", "aten.logical_and.default": "mul",
            "aten.bitwise_or.Tensor": "max", "aten.logical_or.default": "max",
            "aten.bitwise_xor.Tensor": "ne", "aten.logical_xor.default": "ne"}
"""Logic on conditions (0 / 1 tiles): not c is 1 - c, and a product, or a maximum, xor a comparison."""
REWRITTEN = ("aten.relu.default", "aten.pow.Tensor_Scalar", "aten.reciprocal.default", *_LOGICAL)
"""Elementwise targets computed by another entry of the op table (see `elementwise_form`)."""
_POWERS = {2: ("aten.mul.Tensor", "x * x"), 3: ("aten.mul.Tensor", "x * x * x"), 0.5: ("aten.sqrt.default", "sqrt"),
           -0.5: ("aten.rsqrt.default", "rsqrt"), -1: ("aten.div.Tensor", "1 / x")}


def elementwise_form(node: torch.fx.Node) -> tuple[ops.Op | None, list]:
    """The op-table entry an elementwise node computes and its operands (tiles as FX nodes, or numbers):
    relu is max(x, 0), `x ** c` for c in 2, 3, 0.5, -0.5, -1 is x * x (* x), sqrt, rsqrt or 1 / x, reciprocal 1 / x.
    The entry is None for a format conversion; a power not known when compiling raises a ValueError (any other
    constant is `ComputeLowering.power`'s)."""
    name = target_name(node)
    if name == "aten.relu.default":
        return ops.from_aten("aten.maximum.default"), [node.args[0], 0.0]
    if name == "aten.reciprocal.default":  # `1.0 / x` as torch traces it
        return ops.from_aten("aten.div.Tensor"), [1.0, node.args[0]]
    if name in _LOGICAL:
        if any(isinstance(a, torch.fx.Node) and a.meta["val"].dtype != torch.bool for a in node.args):
            raise ValueError(f"`{name}` on integers is not supported; expected it on conditions (comparisons)")
        if _LOGICAL[name] == "not":
            return ops.lookup("binary", "sub"), [1.0, node.args[0]]
        return ops.lookup("binary", _LOGICAL[name]), list(node.args[:2])
    if name == "aten.pow.Tensor_Scalar":
        x, power = node.args
        if power not in _POWERS:  # numbers went to `ComputeLowering.power`: this one is not known when compiling
            raise ValueError(f"`x ** {power}` with a power not known when compiling is not supported; expected a "
                             "constant or a scalar argument of the kernel")
        target = _POWERS[power][0]
        operands = {2: [x, x], 3: [x, x, x], -1: [1.0, x]}.get(power, [x])  # x * x * x, as torch computes it
        return ops.from_aten(target), operands
    op = elementwise_op(name)
    arity = 2 if op is not None and op.form == "binary" else 1
    return op, list(node.args[:arity])


def reduction_input(node: torch.fx.Node) -> torch.fx.Node:
    """The reduced tile: the first argument, or, for a reduction over a whole untiled dimension
    (`torch.sum(x[tile_m, :], -1)`), the tile Helion passes in `_extra_args` (its first argument is None)."""
    if node.args[0] is not None:
        return node.args[0]
    (extra,) = node.kwargs["_extra_args"]
    return extra.args[0][0]  # `_inductor_lowering_extra([tile])`


def reduced_axes(node: torch.fx.Node) -> list[int]:
    """The axes a reduction names (`torch.max(x, dim)`, `x.sum([-1])`); every axis for `x.sum()`."""
    if len(node.args) > 1 and node.args[1] is not None:
        return [node.args[1]] if isinstance(node.args[1], int) else list(node.args[1])
    return list(range(reduction_input(node).meta["val"].dim()))


def reduction_op(name: str) -> ops.Op | None:
    """The op-table entry of a reducing ATen target (None: not a reduction)."""
    op = ops.from_aten(name)
    return op if op is not None and op.form == "reduce" else None


class ComputeLowering:
    """Compute ops of `KernelLowering` (a mixin: it uses the lowering's builder state)."""

    def lower_subscript(self, node: torch.fx.Node, env: dict) -> Tile:
        src: Tile = env[node.args[0]]
        index = _without_batch(list(node.args[1]), self.batch_positions(node.args[0]))
        if src.row:  # already held as the 1 x n row `[None, :]` asks for
            if index != [None, slice(None)]:
                raise UnsupportedError(f"a rank-1 tile broadcast down rows elsewhere is indexed {index} here; "
                                       "expected `[None, :]`", self.k.location(node))
            return Tile(src.value, src.dims)
        if src.dims == [1] and not self.dims_of(node.args[0].meta["val"].shape) and all(e is None for e in index):
            # one value per batch slice, held as a tile of one (`advantages[tile_b][:, None]`)
            return Tile(src.value, [1] * len(index), tuple(range(1, len(index))))
        if any(e is not None and e != slice(None) for e in index) or sum(e is None for e in index) == 0:
            raise UnsupportedError("only `x[:, None]`-style broadcasting subscripts are supported",
                                   self.k.location(node))
        if index == [None, slice(None)] and _a_column(src):
            return self.column_as_row(src, node)
        dims, expanded, source_dim = [], [], 0
        for pos, entry in enumerate(index):  # src's own unit dims (a keepdim result's) move with it
            if entry is None or source_dim in src.expanded:
                expanded.append(pos)
            dims.append(1 if entry is None else src.dims[source_dim])
            source_dim += entry is not None
        return Tile(src.value, dims, tuple(expanded))

    def column_as_row(self, src: Tile, node: torch.fx.Node) -> Tile:
        """`v[None, :]` of a rank-1 value the per-core programs hold as a column (one value per row: a
        reduction's result, `x.sum(0)` included): transposed into the 1 x n row the broadcast asks for."""
        (extent,) = src.dims
        return self.permuted(self.materialize(Tile(src.value, [extent, 1], (1,)), node), [1, 0], node)

    def permuted(self, src: Tile, perm: list[int], node: torch.fx.Node) -> Tile:
        """`src` (all its dims in its SSA tensor) with its dims in the order `perm`: one `linalg.transpose`."""
        dims = [src.dims[p] for p in perm]
        init = self.empty(dims, src.value.type.element_type)
        op = TransposeOp(src.value, init, DenseArrayBase.from_list(i64, perm), init.type)
        return Tile(self.located(op, node).results[0], dims)

    def materialize(self, tile: Tile, node: torch.fx.Node) -> Tile:
        """A tile whose SSA tensor has all its logical dims (unit dims from `[:, None]` made real)."""
        if not tile.expanded:
            return tile
        return self.elementwise_tiles(node, [tile], tile.dims, tile.value.type.element_type, None)

    def lower_permute(self, node: torch.fx.Node, env: dict) -> Tile:
        src = self.materialize(env[node.args[0]], node)
        batch = self.batch_positions(node.args[0])
        perm = [p % len(node.meta["val"].shape) for p in node.args[1]]
        if any(perm[i] != i for i in batch):
            raise UnsupportedError("a permutation that moves a batch dimension is not supported; expected the "
                                   "leading (batch) dimensions left in place", self.k.location(node))
        return self.permuted(src, [p - sum(b < p for b in batch) for p in perm if p not in batch], node)

    def lower_squeeze(self, node: torch.fx.Node, env: dict) -> Tile:
        """`x.squeeze(d)` / `x.unsqueeze(d)`: a unit dim dropped or added. Both relabel the tile; a unit dim
        that `[:, None]` or `keepdim=True` added is dropped without touching the data, any other is refused."""
        src: Tile = env[node.args[0]]
        shape = node.args[0].meta["val"].shape
        batch = self.batch_positions(node.args[0])
        if target_name(node) == "aten.unsqueeze.default":
            at = node.args[1] % (len(shape) + 1)
            at -= sum(b < at for b in batch)
            expanded = tuple(e + (e >= at) for e in src.expanded) + (at,)
            return Tile(src.value, [*src.dims[:at], 1, *src.dims[at:]], expanded)
        given = node.args[1] if len(node.args) > 1 else range(len(shape))
        positions = [d % len(shape) for d in ([given] if isinstance(given, int) else given)]
        dims, expanded = list(src.dims), list(src.expanded)
        for pos in sorted((p for p in positions if p not in batch and shape[p] == 1), reverse=True):
            at = pos - sum(b < pos for b in batch)
            if at not in expanded:
                raise UnsupportedError("squeezing a unit dimension the tile holds is not supported yet; expected a "
                                       "dimension that `[:, None]` or `keepdim=True` added", self.k.location(node))
            del dims[at]
            expanded = [e - (e > at) for e in expanded if e != at]
        return Tile(src.value, dims, tuple(expanded))

    def matmul(self, lhs: Tile, rhs: Tile, acc: Tile, node: torch.fx.Node) -> Tile:
        if len(lhs.dims) != 2 or len(rhs.dims) != 2:
            raise UnsupportedError("only 2-D matrix products are supported", self.k.location(node))
        lhs, rhs, acc = (self.materialize(t, node) for t in (lhs, rhs, acc))
        op = MatmulOp([lhs.value, rhs.value], [acc.value], [acc.value.type])
        return Tile(self.located(op, node).res[0], acc.dims)

    def elementwise(self, node: torch.fx.Node, env: dict) -> Tile:
        out = node.meta["val"]
        dims = self.dims_of(out.shape)
        power = node.args[1] if target_name(node) == "aten.pow.Tensor_Scalar" else None
        power = env.get(power) if isinstance(power, torch.fx.Node) else power  # a scalar argument's value
        if isinstance(power, (int, float)) and not isinstance(power, bool) and (
                power not in _POWERS or isinstance(node.args[1], torch.fx.Node)):
            return self.power(node, env[node.args[0]], power, dims, element_type(out.dtype))
        try:
            op, args = elementwise_form(node)
        except ValueError as err:
            raise UnsupportedError(str(err), self.k.location(node)) from None
        operands = [env[a] if isinstance(a, torch.fx.Node) else a for a in args]
        if not dims:  # 0-d values (`x[b.begin, h.begin] * 2`) are computed as the tiles of one they were read into
            dims = next((list(o.dims) for o in operands if isinstance(o, Tile)), dims)
        if any(isinstance(o, Count) for o in operands):  # a count of positions meets a vector: it takes its shape
            if op is None:
                return operands[0]  # converted: the same whole number
            operands = [self.counted(o, dims, node) if isinstance(o, Count) else o for o in operands]
        if op is None and out.dtype in HELD_AS and out.dtype.is_floating_point and isinstance(operands[0], Tile):
            return self.rounded_to_held(node, operands[0], dims, out.dtype)
        out_type = element_type(out.dtype) if out.dtype != torch.bool else _condition_type(operands)
        if op is not None and op.name in _FLIPPED and _first_broadcasts(operands, dims):
            op, operands = ops.lookup("binary", _FLIPPED[op.name]), operands[::-1]  # `m[:, None] > x` is x < m
        if op is not None and isinstance(out_type, IntegerType):
            raise UnsupportedError(f"`{op.name}` on integer tiles is not supported yet (the op table's ops are "
                                   "floating point); expected the integers converted first, `.to(torch.float32)`",
                                   self.k.location(node))
        if op is not None and op.form == "binary" and len(operands) > 2:  # a chain (`x ** 3`): left to right
            first = self.elementwise_values(node, operands[:2], dims, out_type, op)
            return self.elementwise_values(node, [first, *operands[2:]], dims, out_type, op)
        if len(dims) == 2:  # torch aligns a rank-1 operand with the last dimension: a row
            operands = [self.column_as_row(o, node) if _a_column(o) else o for o in operands]
        common = _expanded_in_all(operands, dims)
        if common:  # `max(m[:, None], amax(s, -1, keepdim=True))`: computed without the unit dims all add
            inner = self.elementwise_values(node, [_without_dims(o, common) for o in operands],
                                            [d for i, d in enumerate(dims) if i not in common], out_type, op)
            return Tile(inner.value, dims, common)
        return self.elementwise_values(node, operands, dims, out_type, op)

    def power(self, node: torch.fx.Node, x: Tile, power: float, dims: list, out_type) -> Tile:
        """`x ** power` for a constant other than `_POWERS`'s, or a scalar argument's value: a whole power by squaring
        (x ** -n as 1 / x ** n, right for negative x as torch's), 0.5 and -0.5 as sqrt and rsqrt, any other as
        exp(power * log(x)) (NaN for negative x, as torch)."""
        if not isinstance(x, Tile) or power == 0:
            raise UnsupportedError(f"`x ** {power}` is not supported; expected a tile raised to a nonzero constant",
                                   self.k.location(node))
        mul = ops.lookup("binary", "mul")
        if power in (0.5, -0.5):
            root = ops.lookup("unary", "sqrt" if power > 0 else "rsqrt")
            return self.elementwise_values(node, [x], dims, out_type, root)
        if float(power).is_integer():
            n, result, base = abs(int(power)), None, x
            while n:
                if n & 1:
                    result = base if result is None else self.elementwise_values(node, [result, base], dims, out_type,
                                                                                mul)
                n >>= 1
                base = self.elementwise_values(node, [base, base], dims, out_type, mul) if n else base
            return result if power > 0 else self.elementwise_values(node, [1.0, result], dims, out_type,
                                                                     ops.lookup("binary", "div"))
        log = self.elementwise_values(node, [x], dims, out_type, ops.lookup("unary", "log"))
        scaled = self.elementwise_values(node, [log, float(power)], dims, out_type, mul)
        return self.elementwise_values(node, [scaled], dims, out_type, ops.lookup("unary", "exp"))

    def rounded_to_held(self, node: torch.fx.Node, src: Tile, dims: list, dtype: torch.dtype) -> Tile:
        """`x.to(torch.float8_e4m3fn)` in the loop: x rounded to the fp8 values in its own format (one rounding,
        as torch casts), then converted, exactly, to the format the device holds fp8 in (`HELD_AS`)."""
        rounded = self.elementwise_values(node, [src], dims, src.value.type.element_type,
                                          ops.lookup("unary", f"round_{str(dtype).removeprefix('torch.')}"))
        return self.elementwise_values(node, [rounded], dims, element_type(HELD_AS[dtype]), None)

    def elementwise_values(self, node, operands: list, dims: list, out_type, op) -> Tile:
        body = op.ir if op is not None else None  # None: prims.convert_element_type
        row = any(isinstance(o, Tile) and o.row for o in operands) and len(dims) == 1
        if row:  # a column (a reduction's result) meets a row (`rsqrt(var) * weight[tile_n]`): made a row too
            operands = [_as_row(self.column_as_row(o, node)) if _a_column(o) and not _one_value(o) else o
                        for o in operands]
        if row and not all(o.row or _one_value(o) for o in operands if isinstance(o, Tile)):
            raise UnsupportedError("a rank-1 tile broadcast down rows combined with a rank-1 tile of one value per "
                                   "row; expected both broadcast the same way", self.k.location(node))
        if not row and op is not None and op.form == "binary" and _both_broadcast(operands, dims):
            # `a[:, None] * b[None, :]`: Tensix broadcasts one operand of an instruction; the first is widened
            # to the whole block first (0 + a, exact)
            zeros = Tile(self.filled(dims, operands[0].value.type.element_type, 0.0, node), dims)
            operands = [self.elementwise_tiles(node, [zeros, operands[0]], dims, operands[0].value.type.element_type,
                                               arith.AddfOp), operands[1]]
        if not row and op is not None and op.name in ("sub", "div") and _first_broadcasts(operands, dims):
            return self.second_broadcast(node, operands, dims, out_type, op.name)
        result = self.elementwise_tiles(node, operands, [1, *dims] if row else dims, out_type, body)
        return Tile(result.value, result.dims, row=row)

    def padding_masked(self, src: Tile, axes: list[int], identity: float, source: torch.fx.Node,
                       node: torch.fx.Node) -> Tile:
        """`src` with the padding of a whole reduced dimension that is not whole tiles set to the reduction's
        identity, where Helion did not mask it (`_mask_to`): it leaves a dimension of size 1 unmasked, which
        Loom pads to a whole tile."""
        if target_name(source) in ("_mask_to", *IDENTITY) or src.expanded or src.row:
            return src
        extents = {a: self.whole_extent.get(src.dims[a], src.dims[a]) for a in axes if isinstance(src.dims[a], int)}
        tails = {a: n for a, n in extents.items() if n % self.alignment}
        if not tails:
            return src
        keep = [[-1 if d == a else 0 for d in range(len(src.dims))] + [n - 1] for a, n in tails.items()]
        return self.position_mask(src, [self.const(0)] * len(src.dims), keep, identity, node)

    def lower_where(self, node: torch.fx.Node, env: dict) -> Tile:
        """`torch.where(cond, a, b)` (or `x.masked_fill(cond, v)`) on a condition computed from data (a 0 / 1
        tile): select(cond, a) + select_not(cond, b), exact since one term is 0.0; a 0.0 branch is left out."""
        if target_name(node) == "aten.masked_fill.Scalar":
            cond, a, b = node.args[1], node.args[2], node.args[0]
        else:
            cond, a, b = node.args[:3]
        cond, a, b = (env[v] if isinstance(v, torch.fx.Node) else v for v in (cond, a, b))
        if not isinstance(cond, Tile) or not all(isinstance(v, (Tile, int, float)) for v in (a, b)):
            raise UnsupportedError("`torch.where` takes a condition tile and tiles or numbers here",
                                   self.k.location(node))
        out = node.meta["val"]
        dims, out_type = self.dims_of(out.shape), element_type(out.dtype)
        terms = [self.elementwise_values(node, [cond, v], dims, out_type, ops.lookup("binary", name))
                 for v, name in ((a, "select"), (b, "select_not")) if not (isinstance(v, (int, float)) and v == 0)]
        if not terms:
            return self.elementwise_values(node, [cond, 0.0], dims, out_type, ops.lookup("binary", "select"))
        if len(terms) == 1:
            return terms[0]
        return self.elementwise_values(node, terms, dims, out_type, ops.lookup("binary", "add"))

    def second_broadcast(self, node, operands: list, dims: list, out_type, name: str) -> Tile:
        """`m[:, None] - x` as -(x - m) and `m[:, None] / x` as (1 / x) * m: Tensix broadcasts only an
        instruction's second operand, so the broadcast one moves there at the price of one more op."""
        m, x = operands
        if name == "sub":
            flipped = self.elementwise_tiles(node, [x, m], dims, out_type, arith.SubfOp)
            return self.elementwise_tiles(node, [flipped], dims, out_type, arith.NegfOp)
        inverse = self.elementwise_tiles(node, [1.0, x], dims, out_type, arith.DivfOp)
        return self.elementwise_tiles(node, [inverse, m], dims, out_type, arith.MulfOp)

    def elementwise_tiles(self, node, operands: list, dims: list, out_type, body_op) -> Tile:
        """A `linalg.generic` computing `body_op` elementwise with numpy broadcasting."""
        rank = len(dims)
        tiles = [o for o in operands if isinstance(o, Tile)]
        maps = [broadcast_map(t, dims) for t in tiles] + [AffineMap.identity(rank)]
        scalars = {i: o for i, o in enumerate(operands) if not isinstance(o, Tile)}
        # a number stays fp32 (as the vector unit takes it) and meets a bf16 / f16 tile in the body, where the
        # op runs: `x * 0.18` rounds the product to bf16, not the number first (as torch computes it)
        scalar_values = {i: self.fconst(v, f32 if out_type in (bf16, f16) else out_type) for i, v in scalars.items()}
        init = self.empty(dims, out_type)
        body = Block(arg_types=[t.value.type.element_type for t in tiles] + [out_type])
        bb = Builder(InsertPoint.at_end(body))
        args, tile_args = [], iter(body.args)
        for i in range(len(operands)):
            args.append(scalar_values[i] if i in scalars else next(tile_args))
        args = [_convert(bb, a, out_type) for a in args]
        result = args[0] if body_op is None else bb.insert(body_op(*args)).result
        bb.insert(YieldOp(result))
        op = GenericOp(
            [t.value for t in tiles], [init], Region(body), [AffineMapAttr(m) for m in maps],
            [IteratorTypeAttr(IteratorType.PARALLEL)] * rank, [init.type],
        )
        return Tile(self.located(op, node).res[0], dims)

    def reduction(self, node: torch.fx.Node, env: dict) -> Tile | tuple:
        name = target_name(node)
        if name in ("aten.max.dim", "aten.min.dim"):  # (values, indices): the values are amax / amin
            if any(target_name(u) == "getitem" and u.args[1] != 0 for u in node.users):
                raise UnsupportedError(f"the indices of `{name}` (an arg-max or arg-min) are not supported yet; "
                                       "expected its values only", self.k.location(node))
            return (self.reduction_values(node, env, name), None)
        return self.reduction_values(node, env, name)

    def reduction_values(self, node: torch.fx.Node, env: dict, name: str) -> Tile:
        src = self.materialize(env[reduction_input(node)], node)
        if src.row:
            raise UnsupportedError("reducing a rank-1 tile that is broadcast down rows is not supported yet",
                                   self.k.location(node))
        rank = len(src.dims)
        source = reduction_input(node)
        batch = self.batch_positions(source)
        given = reduced_axes(node)
        axes = sorted(a % source.meta["val"].dim() for a in given)
        axes = [a - sum(b < a for b in batch) for a in axes if a not in batch]
        if len(axes) != len(given) or any(a < rank - 2 for a in axes):
            raise UnsupportedError("a reduction over a leading (batch) dimension is not supported yet; expected "
                                   "reductions over the last two dimensions", self.k.location(node))
        lead = [getattr(d, "label", d) for d in src.dims[:-2] if d != 1]
        if lead:  # a result per (head, row) would need a column per head
            raise UnsupportedError(f"`{name}` of a tile that spans a leading dimension ({lead[0]} positions: "
                                   "`x[tile, :, tile_t, :]`) is not supported yet; expected one position of each "
                                   "leading dimension per tile (`x[tile_b, h, tile_t, :]`, or a grid over it)",
                                   self.k.location(node))
        keepdim = bool(node.args[2]) if len(node.args) > 2 else bool(node.kwargs.get("keepdim", False))
        if rank >= 2 and axes == [rank - 2]:  # over a tile's rows (column sums): transposed, a row reduction
            if keepdim:
                raise UnsupportedError("a reduction over a tile's rows with `keepdim=True` is not supported yet; "
                                       "expected it without keepdim (or `x.T` reduced over its last dimension)",
                                       self.k.location(node))
            src, axes = self.permuted(src, [*range(rank - 2), rank - 1, rank - 2], node), [rank - 1]
        op = reduction_op(name)
        src = self.padding_masked(src, axes, op.identity, reduction_input(node), node)
        if len(axes) == rank:
            raise UnsupportedError(f"`{name}` of every dimension of a tile (one value) is not supported yet; "
                                   "expected a reduction that leaves a dimension (`x.sum(-1)` of a 2-D tile), or "
                                   "the count of a condition on positions (`valid.to(torch.int32).sum()`)",
                                   self.k.location(node))
        result = self.reduce_tile(src, axes, op, node)
        dims = result.dims
        if name in _MEANS:  # a mean is the sum scaled by 1 / (number of elements reduced)
            sizes = [src.dims[a] if isinstance(src.dims[a], int) else getattr(src.dims[a], "fixed", None)
                     for a in axes]
            if any(not isinstance(n, int) for n in sizes):
                blocks = ", ".join(f"`{getattr(src.dims[a], 'label', src.dims[a])}`" for a in axes)
                raise UnsupportedError(f"`{name}` over {blocks}, a block whose size the solver chooses, is not "
                                       "supported yet; expected a mean over a whole dimension (`x[tile_m, :]`) or "
                                       "a sum divided by the number of elements", self.k.location(node))
            count = math.prod(sizes)
            result = self.elementwise_tiles(node, [result, 1.0 / count], dims, src.value.type.element_type,
                                            arith.MulfOp)
        if keepdim:  # the reduced dims stay as unit dims, as `[:, None]` would add them
            return Tile(result.value, [1 if i in axes else d for i, d in enumerate(src.dims)], tuple(axes))
        return result

    def reduce_tile(self, src: Tile, axes: list[int], op: ops.Op, node: torch.fx.Node) -> Tile:
        """A `linalg.generic` reducing `src` over `axes` (its last) with the op table's reduction `op`."""
        rank, dtype = len(src.dims), src.value.type.element_type
        dims = [d for i, d in enumerate(src.dims) if i not in axes]
        init = self.filled(dims, dtype, op.identity, node)
        kept = tuple(AffineExpr.dimension(i) for i in range(rank) if i not in axes)
        maps = [AffineMap.identity(rank), AffineMap(rank, 0, kept)]
        iterators = [IteratorType.REDUCTION if i in axes else IteratorType.PARALLEL for i in range(rank)]
        body = Block(arg_types=[dtype, dtype])
        bb = Builder(InsertPoint.at_end(body))
        bb.insert(YieldOp(bb.insert(op.ir(body.args[0], body.args[1])).result))
        generic = GenericOp(
            [src.value], [init], Region(body), [AffineMapAttr(m) for m in maps],
            [IteratorTypeAttr(t) for t in iterators], [init.type],
        )
        return Tile(self.located(generic, node).res[0], dims)

    # ------------------------------------------------------------------ loops

RELABELS = {"aten.permute.default": "lower_permute", "aten.squeeze.dim": "lower_squeeze",
            "aten.squeeze.dims": "lower_squeeze", "aten.squeeze.default": "lower_squeeze",
            "aten.unsqueeze.default": "lower_squeeze"}
"""Ops that relabel a tile's dims, by the `ComputeLowering` method that lowers them."""


@dataclass
class _Fusion:
    accumulate: dict  # add node -> (lhs, rhs, accumulator node)
    widened: dict  # mm node -> dtype it is widened to by a single convert
    alias: dict  # that convert node -> the mm node, which now produces the wide tile
    skipped: set


def _fusable_matmuls(graph: torch.fx.Graph) -> _Fusion:
    """`acc + a @ b` (optionally `acc + (a @ b).float()`) becomes one accumulating linalg.matmul,
    and `(a @ b).float()` a matmul into an fp32 tile: the matrix engine accumulates in fp32."""
    fusion = _Fusion({}, {}, {}, set())
    for node in graph.nodes:
        if target_name(node) not in MATMULS or len(node.users) != 1:
            continue
        user = next(iter(node.users))
        product, convert = node, None
        if target_name(user) == "prims.convert_element_type.default" and len(user.users) == 1:
            convert, user = user, next(iter(user.users))
        if target_name(user) == "aten.add.Tensor":
            other = user.args[0] if user.args[1] is (convert or product) else user.args[1]
            if isinstance(other, torch.fx.Node) and other.meta["val"].dtype == user.meta["val"].dtype \
                    and list(other.meta["val"].shape) == list(user.meta["val"].shape):
                fusion.accumulate[user] = (product.args[0], product.args[1], other)
                fusion.skipped.update({product} | ({convert} if convert else set()))
                continue
        if convert is not None:
            fusion.widened[product] = convert.args[1]
            fusion.alias[convert] = product
    return fusion



_FLIPPED = {"gt": "lt", "lt": "gt", "ge": "le", "le": "ge", "eq": "eq", "ne": "ne"}
"""A comparison with its operands swapped (Tensix broadcasts only an instruction's second operand)."""


def _condition_type(operands: list):
    """The element type a comparison's 0 / 1 result takes: its first tile operand's (torch's is bool)."""
    return next((o.value.type.element_type for o in operands if isinstance(o, Tile)), f32)


def _both_broadcast(operands: list, dims: list) -> bool:
    """Two tiles, neither covering the whole output (`a[:, None] * b[None, :]`, an outer product)."""
    if len(operands) != 2 or not all(isinstance(o, Tile) for o in operands) or len(dims) < 2:
        return False
    whole = AffineMap.identity(len(dims))
    return all(broadcast_map(o, dims) != whole for o in operands)


def _first_broadcasts(operands: list, dims: list) -> bool:
    """Two tiles, the first broadcast over the output (`m[:, None] - x`) and the second not."""
    if len(operands) != 2 or not all(isinstance(o, Tile) for o in operands):
        return False
    whole = AffineMap.identity(len(dims))
    return broadcast_map(operands[0], dims) != whole and broadcast_map(operands[1], dims) == whole


def _expanded_in_all(operands: list, dims: list) -> tuple[int, ...]:
    """The unit dims that `[:, None]` or `keepdim=True` added to every tile operand of an elementwise op of
    output `dims` (each operand of the output's rank), in order; () if there is none."""
    tiles = [o for o in operands if isinstance(o, Tile)]
    if not tiles or any(t.row or len(t.dims) != len(dims) for t in tiles):
        return ()
    common = set(tiles[0].expanded).intersection(*(t.expanded for t in tiles[1:]))
    return tuple(sorted(p for p in common if dims[p] == 1))


def _without_dims(operand: object, positions: tuple[int, ...]) -> object:
    """A tile operand with the given virtual unit dims dropped (numbers pass through)."""
    if not isinstance(operand, Tile):
        return operand
    kept = [e for e in operand.expanded if e not in positions]
    return Tile(operand.value, [d for i, d in enumerate(operand.dims) if i not in positions],
                tuple(e - sum(p < e for p in positions) for e in kept))


def _without_batch(index: list, batch: list[int]) -> list:
    """A subscript's entries (`[:, :, None]`) without those at the source's batch positions (`:` there)."""
    kept, position = [], 0
    for entry in index:
        if entry is None:
            kept.append(entry)
            continue
        if position not in batch:
            kept.append(entry)
        position += 1
    return kept


def broadcast_map(tile: Tile, out_dims: list) -> AffineMap:
    """Map from the output's iteration space to the tile's SSA dims, numpy-style broadcasting."""
    rank = len(out_dims)
    offset = rank - len(tile.dims)
    if offset < 0 and all(d == 1 for d in tile.dims):  # one value (`x[b.begin, h.begin]`) read as a tile of one
        return AffineMap(rank, 0, tuple(AffineExpr.constant(0) for pos in range(len(tile.dims))
                                        if pos not in tile.expanded))
    exprs = []
    for pos, dim in enumerate(tile.dims):
        if pos in tile.expanded:
            continue  # not present in the SSA tensor
        out_dim = out_dims[offset + pos]
        if dim == 1 and out_dim != 1:
            exprs.append(AffineExpr.constant(0))
        else:
            exprs.append(AffineExpr.dimension(offset + pos))
    return AffineMap(rank, 0, tuple(exprs))


def _convert(builder: Builder, value: SSAValue, to: Attribute) -> SSAValue:
    source = value.type
    if source == to:
        return value
    if isinstance(source, IntegerType) != isinstance(to, IntegerType):  # int32 <-> float: torch's `.to`
        convert = arith.SIToFPOp if isinstance(source, IntegerType) else arith.FPToSIOp
        return builder.insert(convert(value, to)).result
    widths = {f16: 16, bf16: 16, f32: 32}
    if widths[source] < widths[to]:
        return builder.insert(arith.ExtFOp(value, to)).result
    return builder.insert(arith.TruncFOp(value, to)).result


def _a_column(value: object) -> bool:
    """A rank-1 tile the per-core programs hold as a column (one value per row), not as a 1 x n row."""
    return isinstance(value, Tile) and len(value.dims) == 1 and not value.row and not value.expanded


def _one_value(tile: Tile) -> bool:
    """A tile of one value (`x[b.begin, h.begin, c.begin, k - 1]`): it broadcasts along rows and columns alike."""
    return all(d == 1 for d in tile.dims)


def _as_row(tile: Tile) -> Tile:
    """A 1 x n tile (`ComputeLowering.column_as_row`'s) held as a rank-1 row."""
    return Tile(tile.value, tile.dims, row=True)
