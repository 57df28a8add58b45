"""Stage 1, positions: `tile.index` and the masks built from it (causal attention's `q_idx >= k_idx`).

A `tile.index` is never materialized. Its elements are affine in the global positions of a block's
elements (`tile.begin + i`), and so is any sum, difference or multiple of them by a number: the
lowering keeps such a value as a `Position`. A comparison of two is a `Predicate`, a conjunction
of half-planes `form >= 0` (`&` adds half-planes; `~` negates a single one). `torch.where(pred, x, c)`
with a number `c` (or `torch.where(pred, c, x)`, `x.masked_fill(pred, c)`) becomes one
`linalg.generic` whose body is `loom.position_mask`, the op a tail's padding takes
(`loom.frontend.tails`); the per-core programs compute the mask from the block's offsets. Between two
tiles (`torch.where(pred, x, y)`), or where the kept side would need a negated `==` (a union no mask
holds), the predicate becomes a 1.0 / 0.0 tile (a mask of ones) and the data select takes it
(`ComputeLowering.lower_where`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import torch
import torch.fx
from xdsl.dialects.builtin import DYNAMIC_INDEX, f32

from loom import ops
from loom.errors import UnsupportedError
from loom.frontend.access import Access, ShiftedTile
from loom.frontend.batch_blocks import tile_symbol
from loom.frontend.global_tensors import host_accesses
from loom.frontend.tiles import Tile, ancestors, target_name
from loom.ir.dialect import ReadOp

_SHIFTED_ONLY = ("tile positions shifted by a scalar (`tile.index + tile_c.begin * k`) are supported as a load's or "
                 "store's index only; expected no arithmetic or comparison on them")


@dataclass(frozen=True)
class Position:
    """sum of coefficient × (position of an element along block b) + const; `terms`: block id -> coefficient.
    A position compared with a tile of data (`tile.index[None, :] == label[:, None]`) also carries that tile,
    `data`, times `data_coeff` (the element's value of it, broadcast as the comparison broadcasts)."""

    terms: tuple[tuple[int, int], ...]
    const: int = 0
    data: Tile | None = field(default=None, compare=False)
    data_coeff: int = 0
    scalars: tuple[torch.fx.Node, ...] = ()  # scalar positions added (`tile_k.index + tile_c.begin * chunk`):
    # a load's or store's index only (`shifted_tiles`)

    def plus(self, other: Position | int, sign: int = 1) -> Position:
        if isinstance(other, int):
            return Position(self.terms, self.const + sign * other, self.data, self.data_coeff, self.scalars)
        if self.scalars or other.scalars:
            raise UnsupportedError(_SHIFTED_ONLY)
        terms = dict(self.terms)
        for block, coeff in other.terms:
            terms[block] = terms.get(block, 0) + sign * coeff
        if self.data is not None and other.data is not None and self.data is not other.data:
            raise UnsupportedError("a position compared with two different tiles of data; expected one")
        data = self.data if self.data is not None else other.data
        coeff = self.data_coeff + sign * other.data_coeff
        return Position(tuple(sorted((b, c) for b, c in terms.items() if c)), self.const + sign * other.const,
                        data if coeff else None, coeff)

    def times(self, k: int) -> Position:
        if self.scalars:
            raise UnsupportedError(_SHIFTED_ONLY)
        return Position(tuple((b, c * k) for b, c in self.terms), self.const * k, self.data, self.data_coeff * k)


@dataclass(frozen=True)
class Predicate:
    """Holds where every half-plane is >= 0."""

    half_planes: tuple[Position, ...]


@dataclass(frozen=True)
class Count:
    """How many positions of one block satisfy a condition (`valid.to(torch.int32).sum()`: Welford's count of
    a block's real columns): one number, the same for every row, never materialized alone; it takes the shape
    of the vector it meets (`PositionLowering.counted`)."""

    cond: Predicate
    block_id: int


_COMPARE = {"ge": (1, 0), "gt": (1, -1), "le": (-1, 0), "lt": (-1, -1)}
"""a OP b as sign × (a − b) + const >= 0 (integers: a > b is a − b − 1 >= 0)."""
_AND = {"aten.bitwise_and.Tensor", "aten.logical_and.default", "and_"}
_NOT = {"aten.bitwise_not.default", "aten.logical_not.default"}
_CONVERT = {"prims.convert_element_type.default", "aten._to_copy.default"}


class PositionLowering:
    """Positions of `KernelLowering` (a mixin: it uses the lowering's builder state)."""

    def is_positional(self, node: torch.fx.Node, env: dict) -> bool:
        """Whether `node` is `tile.index` or computes on a position or a predicate."""
        if target_name(node) == "tile_index":
            return True
        if target_name(node) == "load" and target_name(node.args[0]) == "_host_tensor":
            return node.args[0].args[0] in self.flat_views  # `hl.load(x_flat, [tile_m.index * n + label])`
        return any(isinstance(env.get(a), (Position, Predicate)) for a in node.args if isinstance(a, torch.fx.Node))

    def lower_position(self, node: torch.fx.Node, env: dict) -> object:
        name = target_name(node)
        args = [env.get(a, a) if isinstance(a, torch.fx.Node) else a for a in node.args]
        if name == "load" and target_name(node.args[0]) == "_host_tensor" and node.args[0].args[0] in self.flat_views:
            return self.flat_gather(node, env.get(node.args[1][0]))
        if name == "tile_index":
            return Position(((self._block_of(node.args[0], node).block_id, 1),))
        if name in ("load", "subscript"):  # `idx[:, None]`, `idx[None, :]`: the same positions, broadcast
            if all(i is None or i == slice(None) for i in node.args[1]):
                return args[0]
        op = name.removeprefix("aten.").split(".")[0]
        if len(args) >= 2 and op in (*_COMPARE, "eq", "add", "sub") and any(isinstance(a, Tile) for a in args[:2]):
            args = [Position((), 0, a, 1) if isinstance(a, Tile) else a for a in args]  # data a position meets
        if op == "add" and len(args) == 2 and {type(a) for a in args} == {Position, torch.fx.Node}:
            pos, scalar = (args[0], args[1]) if isinstance(args[0], Position) else (args[1], args[0])
            if isinstance(scalar.meta.get("val"), torch.SymInt) and pos.data is None:  # shifted by a scalar
                return replace(pos, scalars=(*pos.scalars, scalar))
        if len(args) >= 2 and _affine(args[0]) and _affine(args[1]):
            left = args[0] if isinstance(args[0], Position) else Position((), args[0])
            if op in ("add", "sub"):
                return left.plus(args[1], 1 if op == "add" else -1)
            if any(getattr(a, "scalars", ()) for a in args[:2]):
                raise UnsupportedError(_SHIFTED_ONLY, self.k.location(node))
            if op in _COMPARE:
                sign, const = _COMPARE[op]
                return Predicate((left.plus(args[1], -1).times(sign).plus(const),))
            if op == "eq":
                diff = left.plus(args[1], -1)
                return Predicate((diff, diff.times(-1)))
        if op == "mul" and {type(a) for a in args[:2]} == {Position, int}:
            pos, k = (args[0], args[1]) if isinstance(args[0], Position) else (args[1], args[0])
            return pos.times(k)
        if name in _AND and all(isinstance(a, Predicate) for a in args[:2]):
            return Predicate(args[0].half_planes + args[1].half_planes)
        if name in _NOT and isinstance(args[0], Predicate):
            return _negated(args[0], self.k.location(node))
        if name == "aten.where.self" and isinstance(args[0], Predicate):
            cond, x, y = args[:3]
            if isinstance(x, Tile) and isinstance(y, (int, float)):
                return self._masked(x, cond, float(y), node)
            if isinstance(y, Tile) and isinstance(x, (int, float)):
                if len(cond.half_planes) == 1:
                    return self._masked(y, _negated(cond, self.k.location(node)), float(x), node)
            # two tiles, or a condition whose negation no mask holds: the condition as a 0 / 1 tile, selected on
            return self.lower_where(node, {**env, node.args[0]: self._flags(cond, node)})
        if name == "aten.masked_fill.Scalar" and isinstance(args[1], Predicate) and isinstance(args[0], Tile):
            return self._masked(args[0], _negated(args[1], self.k.location(node)), float(args[2]), node)
        if name == "aten.sum.default" and isinstance(args[0], Predicate):
            return self._count(args[0], node)
        if name in _CONVERT and isinstance(args[0], Predicate) and _summed(node):
            return args[0]  # counted where it is summed
        if name == "_mask_to" and isinstance(args[0], Predicate) and not args[1]:  # a tail's padding made false
            tails = tuple(Position(((b, -1),), self.k.blocks[b].extent - 1)
                          for b in sorted({b for half in args[0].half_planes for b, _ in half.terms}))
            return Predicate(args[0].half_planes + tails)
        if name in _CONVERT and isinstance(args[0], Predicate):  # `valid.to(torch.int32)`: 1 where it holds
            held = self._flags(args[0], node)
            if node.meta["val"].dtype.is_floating_point:
                return self.elementwise(node, {**env, node.args[0]: held})
            return held  # counts stay float 0 / 1 (exact; the vector unit sums floats, not integers)
        raise UnsupportedError(
            f"`{name}` on tile positions (`tile.index`) is not supported; expected sums, differences and "
            "multiples by integers of positions, comparisons of them (>=, >, <=, <, ==) joined by `&`, "
            "and `torch.where(cond, x, number)` or `x.masked_fill(cond, number)` on the result",
            self.k.location(node))

    def exact_block_ids(self) -> set[int]:
        """Blocks that must tile their extent with no tail, because positions past it are real data: a tile of
        a loop over part of a dimension (`hl.tile(96)` indexing 224 rows), a tile shifted into the tensor
        (`x[tile_k.index + 64]`, `tile_k.index + tile_c.begin * chunk`: its tail would reach the next chunk) and
        the outer tile of a loop to `(tile_m.id + 1) * block_m` (`helion._bounded_loops`: past a tail that end is
        not the tile's). A block the solver sizes then takes the divisors of its extent only (as a masked
        reduction's); a tail that no block size avoids is refused at the loop."""
        ids = set(self.k.exact_blocks)
        for node in (n for g in self.k.graphs() for n in g.nodes if target_name(n) in ("load", "store")):
            tensor = node.args[0].meta.get("val") if target_name(node.args[0]) == "_host_tensor" else None
            index = list(node.args[1])
            if not isinstance(tensor, torch.Tensor) or len(index) != tensor.dim():
                continue
            for entry, size in zip(index, tensor.shape):
                block, shift = self._tile_and_shift(entry)
                if block is not None and isinstance(size, int) and (shift is None or block.extent + shift < size):
                    ids.add(block.block_id)
        for block in (self.k.blocks[i] for i in sorted(ids)):
            tail = block.extent % block.fixed if block.fixed else block.extent % self.alignment
            if tail:
                raise UnsupportedError(
                    f"`{block.label}` runs over {block.extent} positions in blocks of "
                    f"{block.fixed or f'multiples of {self.alignment}'}, leaving a tail of {tail} where positions "
                    "past its extent are real data (a loop over part of a dimension, a tile shifted into the tensor, "
                    "a loop to `(id + 1) * block`); expected blocks that tile it exactly",
                    self.k.line_location(self.k.tile_loop_line(block.label)))
        return ids

    def _tile_and_shift(self, entry: object) -> tuple[object, int | None]:
        """The block of an index entry that is a tile (`x[tile_k]`, shift 0) or a tile's positions plus a number
        (`tile_k.index + 64`) or a scalar (shift None: not known when compiling); (None, 0) otherwise."""
        block = self.sym_of.get(tile_symbol(entry))
        if block is not None or not isinstance(entry, torch.fx.Node) or target_name(entry) == "tile_index":
            return (block, 0) if block is not None else (None, 0)
        if target_name(entry) not in ("aten.add.Tensor", "aten.sub.Tensor") or len(entry.args) != 2:
            return None, 0
        base, other = entry.args
        if not (isinstance(base, torch.fx.Node) and target_name(base) == "tile_index"):
            base, other = other, base
        if not (isinstance(base, torch.fx.Node) and target_name(base) == "tile_index"):
            return None, 0
        block = self._block_of(base.args[0], base)
        if isinstance(other, int) and not isinstance(other, bool):
            return block, other if target_name(entry) == "aten.add.Tensor" else -other
        return block, None

    def flat_gather(self, node: torch.fx.Node, index: object) -> Tile:
        """`hl.load(x_flat, [tile_m.index * n + label])` of `x_flat = x.view(-1)`, x an m x n argument: each row's
        element at the column its label names, as the sum over the row of `where(column == label, x, 0)` (a read
        of the tile's whole rows; the column Loom's own cross_entropy example picks)."""
        view = node.args[0].args[0]
        cols = self.k.host_tensors[self.flat_views[view]].shape[1]
        terms = getattr(index, "terms", ())
        if not (isinstance(index, Position) and index.data is not None and index.data_coeff == 1 and index.const == 0
                and len(terms) == 1 and terms[0][1] == cols and len(index.data.dims) == 1):
            raise UnsupportedError(f"a load of the flat view `{view}` at other positions than one element per row "
                                   f"(`tile.index * {cols} + column`, the column a tile of data) is not supported; "
                                   "expected the rows' elements picked that way", self.k.location(node))
        block = self.k.blocks[terms[0][0]]
        dims = [block if block.fixed is None else block.fixed, cols]
        access = Access([self.tile_start(block), 0], [self.size_value[block.block_id], cols], [DYNAMIC_INDEX, cols],
                         [0, 1], dims)
        source = self.globals[view]
        tensor_type = self.tensor_type(dims, source.type.element_type)
        read = self.located(ReadOp(self.subview(source, access, node), tensor_type), node).result
        column = Tile(index.data.value, [index.data.dims[0], 1], (1,))  # the label, one per row
        keep = [[0, 1, 0, -1], [0, -1, 0, 1]]  # column - label >= 0 and label - column >= 0
        picked = self.position_mask(Tile(read, dims), [self.tile_start(block), self.const(0)], keep, 0.0, node,
                                    bound=column)
        return self.reduce_tile(picked, [1], ops.lookup("reduce", "sum"), node)

    def _flags(self, cond: Predicate, node: torch.fx.Node) -> Tile:
        """`cond` over the shape of `node`'s value as a float tile: 1.0 where it holds, 0.0 elsewhere."""
        dims = self.dims_of(node.meta["val"].shape)
        return self._masked(Tile(self.filled(dims, f32, 1.0, node), dims), cond, 0.0, node)

    def _count(self, cond: Predicate, node: torch.fx.Node) -> Count:
        blocks = {b for half in cond.half_planes for b, _ in half.terms}
        if len(blocks) != 1 or any(half.data is not None for half in cond.half_planes):
            raise UnsupportedError("the count of a condition on the positions of several blocks (or on data) is not "
                                   "supported; expected a condition on one tile's positions "
                                   "(`(tile_n.index < n).to(torch.int32).sum()`)", self.k.location(node))
        return Count(cond, blocks.pop())

    def counted(self, count: Count, dims: list, node: torch.fx.Node) -> Tile:
        """`count` as a vector over the first block of `dims` (the vector it meets, or a 2-D tile's rows): a
        [rows, block] tile of ones, zero where the condition fails, summed along the counted block."""
        block = self.k.blocks[count.block_id]
        if not dims or getattr(dims[0], "block_id", count.block_id) == count.block_id or len(dims) > 2:
            raise UnsupportedError("a count of positions combined with anything but a vector or a 2-D tile over "
                                   "another block's rows is not supported yet; expected it with a vector "
                                   "(`acc_cnt + count`) or a tile (`x[tile_m, tile_n] / count`)", self.k.location(node))
        key = (count, id(dims[0]), id(self.b.insertion_point.block))  # once per vector shape and block of ops
        vector = self.counted_vectors.get(key)
        if vector is None:
            ones = Tile(self.filled([dims[0], block], f32, 1.0, node), [dims[0], block])
            vector = self.reduce_tile(self._masked(ones, count.cond, 0.0, node), [1], ops.lookup("reduce", "sum"),
                                      node)
            self.counted_vectors[key] = vector
        return vector if len(dims) == 1 else Tile(vector.value, [dims[0], 1], (1,))  # one value per row

    def _block_of(self, size: object, node: torch.fx.Node):
        """The block whose positions `tile.index` of a tile of size `size` gives."""
        value = size.meta.get("val") if isinstance(size, torch.fx.Node) else size
        expr = value.node.expr if isinstance(value, torch.SymInt) else None
        block = self.sym_of.get(expr)
        if block is None:
            raise UnsupportedError("`tile.index` of a tile that is not a block of the kernel's `hl.tile` loops",
                                   self.k.location(node))
        return block

    def shifted_tiles(self, index: list, env: dict) -> list:
        """A load's index with each entry that is one tile's positions plus a number (`tile_n.index - n1`, a
        `Position`) as that tile's block, shifted (`ShiftedTile`); the other entries as they are."""
        shifted = []
        for entry in index:
            pos = env.get(entry) if isinstance(entry, torch.fx.Node) else None
            if isinstance(pos, Position) and pos.data is None and len(pos.terms) == 1 and pos.terms[0][1] == 1:
                entry = ShiftedTile(self.k.blocks[pos.terms[0][0]], pos.const, pos.scalars)
            shifted.append(entry)
        return shifted

    def extra_masked(self, tile: Tile, node: torch.fx.Node, env: dict) -> Tile:
        """A load's `extra_mask`: 0 where it does not hold, as Helion loads (a condition on tile positions)."""
        mask = node.args[2] if len(node.args) > 2 else None
        if mask is None:
            return tile
        cond = env.get(mask)
        if not isinstance(cond, Predicate):
            raise UnsupportedError("a load's `extra_mask` computed from tensor data is not supported yet; expected a "
                                   "condition on tile positions (`(tile_n.index < n)[None, :]`), or `torch.where` "
                                   "on the loaded tile", self.k.location(node))
        return self._masked(tile, cond, 0.0, node)

    def _masked(self, x: Tile, cond: Predicate, fill: float, node: torch.fx.Node) -> Tile:
        """`x` where `cond` holds, `fill` elsewhere: one position mask over x's dimensions. A half-plane that
        holds at every position of its blocks (`t.index < n` where the blocks tile n exactly) is left out."""
        cond = Predicate(tuple(half for half in cond.half_planes if not self._always(half)))
        if not cond.half_planes:
            return x
        dims = [d for i, d in enumerate(x.dims) if i not in x.expanded]
        blocks = [getattr(d, "block_id", None) for d in dims]
        for half in cond.half_planes:
            stray = [b for b, _ in half.terms if b not in blocks]
            if stray:
                label = self.k.blocks[stray[0]].label
                raise UnsupportedError(f"a mask on the positions of `{label}`, which the masked tile does not span; "
                                       "expected a condition on the tile's own dimensions", self.k.location(node))
        keep = [[dict(half.terms).get(b, 0) if b is not None else 0 for b in blocks] + [half.const]
                for half in cond.half_planes]
        offsets = [self.block_offset(d) if b is not None else self.const(0) for d, b in zip(dims, blocks)]
        data = {id(half.data): half.data for half in cond.half_planes if half.data is not None}
        if len(data) > 1:
            raise UnsupportedError("a mask comparing positions with two different tiles of data; expected one",
                                   self.k.location(node))
        if data:  # each row ends with the data's coefficient
            keep = [row + [half.data_coeff] for row, half in zip(keep, cond.half_planes)]
        return self.position_mask(x, offsets, keep, fill, node, bound=next(iter(data.values()), None))

    def _always(self, half: Position) -> bool:
        """Whether `half` holds at every position of its blocks, each of a fixed size that divides its extent
        (its positions run 0 to extent - 1, no tail; a block the solver sizes keeps its mask)."""
        blocks = [self.k.blocks[b] for b, _ in half.terms]
        if half.data is not None or half.scalars or any(not b.fixed or b.extent % b.fixed for b in blocks):
            return False
        least = half.const + sum(min(0, c * (self.k.blocks[b].extent - 1)) for b, c in half.terms)
        return least >= 0


def flat_gathers(kernel) -> dict[str, str]:
    """Host-side flat views of 2-D arguments (`x_flat = x.view(-1)`) that the kernel only loads at positions
    (`hl.load(x_flat, [tile_m.index * n + label])`): view -> argument. Each is read as its argument
    (`PositionLowering.flat_gather`)."""
    views, accesses = {}, host_accesses(kernel)
    for view, base in kernel.aliases.items():
        tensor = kernel.host_tensors.get(base)
        if base not in kernel.param_names or not isinstance(tensor, torch.Tensor) or tensor.dim() != 2:
            continue
        kinds = accesses.get(view, {})
        loads = kinds.get("load", [])
        if loads and "store" not in kinds and all(len(n.args[1]) == 1 and _from_positions(n.args[1][0])
                                                  and (len(n.args) < 3 or n.args[2] is None)  # no extra mask
                                                  for n in loads):
            views[view] = base
    return views


def _from_positions(entry: object) -> bool:
    """An index entry computed from a tile's positions (`tile.index`)."""
    return isinstance(entry, torch.fx.Node) and any(target_name(n) == "tile_index" for n in ancestors(entry))


def _summed(node: torch.fx.Node) -> bool:
    """Whether every use of `node` is a sum of all its elements, directly or past Helion's tail mask."""
    users = list(node.users)
    return bool(users) and all(target_name(u) == "aten.sum.default" or (target_name(u) == "_mask_to" and _summed(u))
                               for u in users)


def _affine(value: object) -> bool:
    return isinstance(value, Position) or (isinstance(value, int) and not isinstance(value, bool))


def _negated(cond: Predicate, where) -> Predicate:
    """not (f >= 0) is -f - 1 >= 0 (integers); a conjunction's negation is a union, which no mask holds."""
    if len(cond.half_planes) != 1:
        raise UnsupportedError("the negation of a condition joined by `&` (or an `==`) is not supported; expected "
                               "`torch.where(cond, x, number)` with the condition under which x is kept", where)
    return Predicate((cond.half_planes[0].times(-1).plus(-1),))
