"""Stage 1, global accesses: index entries -> `memref.subview` offsets and sizes, `loom.read` / `loom.write`.

Offsets must be affine in the tile indices: a tile (`tile_m`) is `tile index x block size`, a
tile's start (`b.begin`) or an integer; scalar arithmetic on starts is accepted when affine
(+, -, x constant, // constant). Anything computed from tensor data is a data-dependent index.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import torch
import torch.fx
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IntAttr, MemRefType, StridedLayoutAttr, StringAttr
from xdsl.ir import SSAValue

from loom.errors import DataDependentIndexError, UnsupportedError
from loom.frontend.global_tensors import one_row
from loom.frontend.head_groups import grouped_index
from loom.frontend.helion import BlockInfo, ir_name
from loom.frontend.tiles import Tile, ancestors, target_name
from loom.ir.dialect import ReadOp, WriteOp


@dataclass(frozen=True)
class Access:
    offsets: list  # SSAValue or int
    sizes: list  # SSAValue or int
    static_sizes: list[int]
    kept: list[int]  # dims of the global tensor that remain in the tile
    tile_dims: list
    row_at_position: bool = False  # `x[tile_m.begin, :]`: one row (a 1 x n tile) at a computed position
    inside: tuple[int, int] | None = None  # a tile's positions reach outside the tensor (`y[tile_m, tile_n.index -
    # n1]`): the share of them inside it over the tile loop, as (numerator, denominator); None when all are
    inside_span: tuple[str, int, int] | None = None  # one dimension reaching outside: (its tile, the first
    # position inside, the first past it), positions of the tile's loop (concat's y: (tile_n, n1, n1 + n2))


@dataclass(frozen=True)
class ShiftedTile:
    """A load's index entry `tile.index + shift` (`PositionLowering.shifted_tiles`): the tile's block, `shift`
    positions on."""

    block: BlockInfo
    shift: int
    scalars: tuple[torch.fx.Node, ...] = ()  # scalar positions added (`tile_k.index + tile_c.begin * chunk`)


@dataclass(frozen=True)
class TileAt:
    """An index entry `size` positions from a scalar position `at` plus `shift` (`loom.frontend.picks`: the
    tile that holds `t.begin + 63` starts at `t.begin + 32`); `at + shift` is on a tile's edge."""

    at: torch.fx.Node
    shift: int
    size: int


def static_slice(entry: slice, extent: int) -> tuple[int, int]:
    """`[start, stop)` of a slice with bounds known at compile time (`:`, `:half`, `half:`, `-32:`), clamped
    as Python clamps them; a ValueError says what is expected otherwise."""
    bounds = (entry.start, entry.stop, entry.step)
    if not all(b is None or isinstance(b, int) for b in bounds):
        raise ValueError(f"a slice with bounds {bounds[:2]} that are not known when compiling is not supported; "
                         "expected integer bounds or `:`")
    start, stop, step = entry.indices(extent)
    if step != 1:
        raise ValueError(f"a slice with step {step} is not supported; expected step 1")
    if stop <= start:
        raise ValueError(f"the slice [{entry.start}:{entry.stop}] of a dimension of size {extent} is empty")
    return start, stop


class AccessLowering:
    """Global reads and writes of `KernelLowering` (a mixin: it uses the lowering's builder state)."""

    def access(self, node: torch.fx.Node, global_shape: list[int], index: list) -> Access:
        """Offsets and sizes of a global access; static where known, SSA values where symbolic."""
        index = self.vector_index(node, index)
        offsets, sizes, static, kept, tile_dims = [], [], [], [], []
        row_at_position, inside, spans = False, Fraction(1), []
        if len(index) != len(global_shape):
            raise UnsupportedError(
                f"index with {len(index)} entries for a tensor of rank {len(global_shape)}",
                self.k.location(node),
            )
        for dim, (entry, extent) in enumerate(zip(index, global_shape)):
            if isinstance(entry, slice):
                try:
                    start, stop = static_slice(entry, extent)
                except ValueError as err:
                    raise UnsupportedError(str(err), self.k.location(node)) from None
                offsets.append(start)
                sizes.append(stop - start)
                static.append(stop - start)
                kept.append(dim)
                tile_dims.append(stop - start)
            elif isinstance(entry, int):
                if not -extent <= entry < extent:
                    raise UnsupportedError(f"index {entry} is out of range for a dimension of size {extent}",
                                           self.k.location(node))
                offsets.append(entry % extent)  # `x[:, -1]` is the last column, as in torch
                sizes.append(1)
                static.append(1)
            elif isinstance(entry, TileAt):
                offsets.append(self.b.insert(arith.AddiOp(self.affine_index(entry.at, node),
                                                          self.const(entry.shift))).result)
                sizes.append(entry.size)
                static.append(entry.size)
                kept.append(dim)
                tile_dims.append(entry.size)
            elif isinstance(entry, (torch.fx.Node, ShiftedTile)):
                offset, block = self.index_offset(entry, node)
                offsets.append(offset)
                shift = entry.shift if isinstance(entry, ShiftedTile) else 0
                if getattr(entry, "scalars", ()):
                    self.check_scalar_shift(entry, extent, node)
                if block is not None and (shift < 0 or shift + block.extent > extent):
                    self.check_clipped(shift, dim, len(global_shape), node)
                    inside *= Fraction(max(0, min(shift + block.extent, extent) - max(shift, 0)), block.extent)
                    spans.append((block.label, max(0, -shift), min(block.extent, extent - shift)))
                if block is None or block.symbol in self.batch_symbols:  # a position, or one batch slice:
                    sizes.append(1)  # the dimension is dropped
                    static.append(1)
                    row_at_position = block is None and dim == len(global_shape) - 2
                elif block.fixed is not None:
                    sizes.append(block.fixed)
                    static.append(block.fixed)
                    kept.append(dim)
                    tile_dims.append(block.fixed)
                elif dim < len(global_shape) - 2:  # per-core programs move 2-D tiles: one batch slice each
                    raise UnsupportedError(
                        f"`{block.label}` tiles dimension {dim} of a rank-{len(global_shape)} tensor, a leading "
                        "(batch) dimension, with a block size the solver would choose; expected block size 1 there "
                        "(`hl.tile([b, m, n], block_size=[1, None, None])`, indexed `x[tile_b.begin, …]`)",
                        self.k.location(node))
                else:
                    sizes.append(self.size_value[block.block_id])
                    static.append(DYNAMIC_INDEX)
                    kept.append(dim)
                    tile_dims.append(block)
            else:
                raise UnsupportedError(f"index entry {entry!r} is not supported", self.k.location(node))
        if not kept:  # one value per batch slice (`advantages[tile_b]`): a tile of one
            kept, tile_dims = [len(global_shape) - 1], [1]
        row_at_position = row_at_position and kept[-1:] == [len(global_shape) - 1]
        if row_at_position:  # `x[tile_m.begin, :]`: one row of a matrix, whose values lie along a row of its tiles
            kept.insert(len(kept) - 1, len(global_shape) - 2)
            tile_dims.insert(len(tile_dims) - 1, 1)
        share = (inside.numerator, inside.denominator) if inside != 1 else None
        return Access(offsets, sizes, static, kept, tile_dims, row_at_position, share,
                      spans[0] if len(spans) == 1 else None)

    def check_clipped(self, shift: int, dim: int, rank: int, node: torch.fx.Node) -> None:
        """A tile whose positions reach outside the tensor is read (its outside as zeros) only in whole tiles."""
        if target_name(node) != "load":
            raise UnsupportedError("a store to tile positions outside the tensor is not supported; expected the "
                                   "stored tile inside it", self.k.location(node))
        if dim < rank - 2 or shift % self.alignment:
            sign = "-" if shift < 0 else "+"
            what = f"tile positions shifted by {shift} (`tile.index {sign} {abs(shift)}`)" if shift else \
                "a tile whose positions run past the tensor's end"
            raise UnsupportedError(f"a load at {what} on dimension {dim} of a rank-{rank} tensor: positions outside "
                                   f"a tensor are read (as zeros) on its last two dimensions, in whole tiles "
                                   f"(shifts by multiples of {self.alignment}), only", self.k.location(node))

    def check_scalar_shift(self, entry: ShiftedTile, extent: int, node: torch.fx.Node) -> None:
        """A tile shifted by scalars (`tile_k.index + tile_c.begin * chunk`) stays inside the tensor, in whole
        tiles, for every value the scalars take (`ScalarLowering.scalar_span`)."""
        spans = [self.scalar_span(s) for s in entry.scalars]
        if None in spans:
            raise UnsupportedError("tile positions shifted by a scalar that is not a sum of tile starts, grid "
                                   "indices and integers (with +, -, x constant, // constant) are not supported",
                                   self.k.location(node))
        low = entry.shift + sum(lo for lo, _, _ in spans)
        high = entry.shift + sum(hi for _, hi, _ in spans) + entry.block.extent
        step = math.gcd(*(st for _, _, st in spans))
        if low < 0 or high > extent:
            raise UnsupportedError(f"tile positions shifted by a scalar reach {low} to {high} on a dimension of size "
                                   f"{extent}; expected every position inside the tensor", self.k.location(node))
        if step % self.alignment or low % self.alignment:
            raise UnsupportedError(f"tile positions shifted by a scalar that starts at {low} and moves in steps of "
                                   f"{step}: expected whole tiles (multiples of {self.alignment})",
                                   self.k.location(node))

    def vector_index(self, node: torch.fx.Node, index: list) -> list:
        """The index of a rank-1 tensor in its matrix layout (`vector_layouts`): `w[None, e]` of a row is
        `w[:, e]` (the unit dimension kept: a 1 x n tile broadcast down the rows); `v[e]` of a column is
        `v[e, 0]` (a rank-1 tile: one value per row) and `v[e, None]` is `v[e, :]` (an n x 1 tile)."""
        tensor = node.args[0]
        layout = self.vectors.get(tensor.args[0]) if target_name(tensor) == "_host_tensor" else None
        if layout is None or len(index) != tensor.meta["val"].dim() and None not in index:
            return index  # (or already in the matrix layout: `lower_load` picks from it)
        if layout == "scalar":  # one value per batch slice: a 1 x 1 matrix each
            return [*index, 0, 0]
        batch = tensor.meta["val"].dim() - 1  # a batch of vectors: its batch entries first, as they are
        lead, index = index[:batch], index[batch:]
        entries = [e for e in index if e is not None]
        if len(entries) != 1 or len(index) > 2 or None in lead:
            raise UnsupportedError(f"index {lead + index} of the vector `{tensor.args[0]}`; expected one entry "
                                   "(after its batch entries), with `None` before it (a row) or after it (a column)",
                                   self.k.location(node))
        if layout == "row":
            return [*lead, slice(None), entries[0]]
        return [*lead, entries[0], slice(None) if len(index) == 2 else 0]

    def index_offset(self, entry: torch.fx.Node | ShiftedTile,
                     user: torch.fx.Node) -> tuple[SSAValue, BlockInfo | None]:
        """Offset of one index entry: a tile (`tile_m`), a shifted one (`tile_n.index + k`) or a tile's scalar
        start (`b.begin`)."""
        if isinstance(entry, ShiftedTile):
            offset = self.b.insert(arith.AddiOp(self.tile_start(entry.block), self.const(entry.shift))).result
            for scalar in entry.scalars:
                offset = self.b.insert(arith.AddiOp(offset, self.affine_index(scalar, user))).result
            return offset, entry.block
        val = entry.meta.get("val")
        if isinstance(val, torch.Tensor) and _positions_only(entry):
            raise UnsupportedError("this index is computed from tile positions (`tile.index`), which is not "
                                   "supported yet as a load or store index; expected a tile (`x[tile_n]`) or an "
                                   "affine expression of tile starts (`x[tile_n.begin + k]`)", self.k.location(user))
        if isinstance(val, torch.Tensor):
            raise DataDependentIndexError(
                "this index is computed from tensor data; Loom needs indices that are affine in the tile indices",
                self.k.location(user),
            )
        if target_name(entry) in ("_get_symnode", "aten.sym_size.int") and val.node.expr in self.sym_of \
                and self.grid_block(entry) is None and grouped_index(self.k, entry) is None:
            block = self.block_of_symint(entry, user)  # a tile (`x[tile_m]`)
            return self.tile_start(block), block
        return self.scalar_index(entry, user), None

    def tile_start(self, block: BlockInfo) -> SSAValue:
        """`tile index × block size`, after the enclosing tile's start for a loop from it
        (`hl.tile(tile_m.begin, tile_m.end)`, `hl.tile(tile_m.begin, n)`); built once per scope."""
        iv = self.iv_value[block.block_id]
        base = block.within if block.within is not None else block.bounded_by if block.from_begin else None
        if block.fixed == 1 and base is None:
            return iv
        key = ("start", block.block_id)
        if key not in self.const_cache:
            start = iv if block.fixed == 1 else self.b.insert(arith.MuliOp(iv, self.size_value[block.block_id])).result
            if base is not None:  # a loop from an enclosing tile's start
                start = self.b.insert(arith.AddiOp(self.tile_start(self.k.blocks[base]), start)).result
            self.const_cache[key] = start
        return self.const_cache[key]

    def subview(self, source: SSAValue, acc: Access, node: torch.fx.Node) -> SSAValue:
        shape = source.type.get_shape()
        strides = [math.prod(shape[i + 1 :]) for i in range(len(shape))]
        layout = StridedLayoutAttr([strides[d] for d in acc.kept], None)
        result_type = MemRefType(source.type.element_type, [acc.static_sizes[d] for d in acc.kept], layout)
        op = memref.SubviewOp.get(source, acc.offsets, acc.sizes, [1] * len(shape), result_type)
        return self.located(op, node).result

    def lower_load(self, node: torch.fx.Node, env: dict) -> Tile:
        source = env[node.args[0]]
        self.flush_columns(source)  # columns stored into it earlier in the block land first
        index = self.shifted_tiles(row_read(node, list(node.args[1]), self.vectors), env)  # `loom.frontend.positions`
        index, picks = self.picks(node, self.vector_index(node, index), source.type.get_shape())  # `picks`
        acc = self.access(node, source.type.get_shape(), index)
        view = self.subview(source, acc, node)
        if acc.inside:  # positions outside the tensor read as zeros (`loom.backend.program.DramRead.clip`)
            view.owner.attributes["loom.clip"] = ArrayAttr([IntAttr(n) for n in acc.inside])
            if acc.inside_span:  # which loads never both read in one block (`loom.mapping.engines.engine_positions`)
                label, first, past = acc.inside_span
                view.owner.attributes["loom.clip_span"] = ArrayAttr([StringAttr(label), IntAttr(first), IntAttr(past)])
        result_type = self.tensor_type(acc.tile_dims, source.type.element_type)
        read = self.located(ReadOp(view, result_type), node).result
        if node.name.startswith("load"):  # an unnamed read: name the tile after its tensor
            read.name_hint = f"{ir_name(node.args[0].args[0])}_tile"
        held = len(self.dims_of(node.meta["val"].shape))
        tile = Tile(read, acc.tile_dims, row=len(acc.tile_dims) > held > 0 and not picks)  # (held 0: a tile of one)
        if picks:
            tile = self.picked(tile, picks, len(source.type.get_shape()), node)
        return self.extra_masked(tile, node, env)  # `loom.frontend.positions`

    def lower_store(self, node: torch.fx.Node, env: dict) -> None:
        dest = env[node.args[0]]
        index = self.shifted_tiles(row_read(node, list(node.args[1]), self.vectors), env)  # `out[0, tile_n] = …`
        if _column_store(index) and self.defers_column_store(node, dest, index, env.get(node.args[2])):
            return  # written with the other columns of its tiles (`loom.frontend.column_stores`)
        self.store_value(node, dest, index, env[node.args[2]])

    def store_value(self, node: torch.fx.Node, dest: SSAValue, index: list, value: object) -> None:
        """`dest[index] = value`: the write of a store node (or of the columns gathered for one)."""
        acc = self.access(node, dest.type.get_shape(), index)
        value = self.materialize(value, node)
        given = list(node.args[1])  # `row_read` made `out[0, tile_n]`'s 0 a slice of one row
        row_store = len(index) == len(given) >= 2 and isinstance(given[-2], int) and isinstance(index[-2], slice) \
            and not isinstance(index[-1], slice)
        if (row_store or acc.row_at_position) and dest.type.get_shape()[-2] > 1:
            raise UnsupportedError(
                "storing one row of a matrix (`out[i, tile_n] = …`, `out[tile_m.begin, :] = …`) is not supported yet: "
                "the per-core programs write whole tiles, which would overwrite the rows around it; expected the rows "
                "stored as blocks (`out[tile_m, tile_n]`) or a vector output", self.k.location(node))
        layout = self.vectors.get(node.args[0].args[0]) if target_name(node.args[0]) == "_host_tensor" else None
        target = "row" if row_store or layout == "row" else "column" if layout == "col" or _column_store(index) \
            else None  # how the destination lies in its tiles, where it is one row or one column
        given = "row" if value.row else "column" if len(value.dims) == 1 else None
        if target and given and target != given:
            raise UnsupportedError(
                f"storing a {given} of values into a {target} (a vector or one row or column of a matrix); expected "
                "the value stored the way it lies in its tiles (`x[i, tile_n]` is a row; a reduction, `.sum(-1)` "
                "or `.sum(0)`, gives a column)", self.k.location(node))
        if any(user is not node and target_name(user) != "store" for user in getattr(node.args[2], "users", ())):
            # the value is used on after the store: the writer drains a copy, compute keeps the value
            value = self.elementwise_tiles(node, [value], value.dims, value.value.type.element_type, None)
        if value.value.type.element_type != dest.type.element_type:
            raise UnsupportedError(
                f"storing {value.value.type.element_type} into a tensor of {dest.type.element_type}; "
                "convert with `.to(dtype)` first",
                self.k.location(node),
            )
        view = self.subview(dest, acc, node)
        self.located(WriteOp(value.value, view), node)

    # ---------------------------------------------------------------- compute

def _positions_only(node: torch.fx.Node) -> bool:
    """Whether `node` computes on tile positions (`tile.index`) and reads no tensor data."""
    names = {target_name(n) for n in ancestors(node)}
    return "tile_index" in names and not names & {"load", "_host_tensor"}


def row_read(node: torch.fx.Node, index: list, vectors: dict) -> list:
    """A load's index with an integer on the second-to-last dimension of a matrix whose last dimension it
    keeps (`x[0, tile_n]`) made a slice of one row: the values lie along a row of their tiles, so the tile
    is a row (1 x n), not the column a rank-1 tile otherwise is."""
    tensor = node.args[0]
    if target_name(tensor) != "_host_tensor" or tensor.args[0] in vectors:
        return index
    rows = int(tensor.meta["val"].shape[-2]) if tensor.meta["val"].dim() >= 2 else 0
    if not one_row(index, tensor.meta["val"].shape) or not -rows <= index[-2] < rows:
        return index  # (an index out of range is refused by `access`)
    start = index[-2] % rows
    return [*index[:-2], slice(start, start + 1), index[-1]]


def _column_store(index: list) -> bool:
    """An index with an integer on the last dimension of a matrix whose second-to-last it keeps
    (`out[tile_m, 0]`): one column."""
    return len(index) >= 2 and isinstance(index[-1], int) and not isinstance(index[-2], int) and index[-2] is not None
