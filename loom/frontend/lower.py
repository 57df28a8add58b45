"""Stage 1: lower a traced Helion kernel to symbolic, dataflow-agnostic MLIR.

Shape of the result (one `func.func` per kernel):
- every block size is `loom.sym @<source label> {upper_bound}` (fixed sizes are constants);
- the launch grid is one `affine.parallel` over tile indices, device loops are `scf.for`
  over tile indices with loop-carried tiles as `iter_args`;
- a global access is `memref.subview` at offsets `tile index * block size` read into a
  tile value with `loom.read` (written back with `loom.write`);
- computation is linalg on tensors: `linalg.fill`, `linalg.matmul`, `linalg.transpose`,
  and `linalg.generic` for elementwise maps (with broadcasting maps), reductions and tail masks.
A dimension need not be a multiple of the block alignment: its tail is padded (`loom.frontend.tails`).
Every op the user wrote carries `loom.loc = "file.py:LINE"`.
"""

from __future__ import annotations

import math
import operator
import os

import torch
import torch.fx
from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import affine, arith, func, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    DenseIntElementsAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    VectorType,
    i32,
    i64,
)
from xdsl.dialects.linalg.ops import FillOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from loom.errors import CapacityError, LoomError, UnsupportedError
from loom.frontend.access import AccessLowering
from loom.frontend.atomics import AtomicLowering
from loom.frontend.batch_blocks import with_batch_blocks_of_one
from loom.frontend.column_halves import column_halves
from loom.frontend.column_stores import ColumnStoreLowering
from loom.frontend.compute import (
    MATMULS,
    RELABELS,
    REWRITTEN,
    ComputeLowering,
    _fusable_matmuls,
    _Fusion,
    elementwise_op,
    reduction_op,
)
from loom.frontend.control_flow import NOT_TAKEN, ControlFlowLowering
from loom.frontend.global_tensors import check_read_back, host_accesses, laid_out, vector_layouts, written_arguments
from loom.frontend.head_groups import head_groups
from loom.frontend.helion import BlockInfo, TracedKernel, ir_name
from loom.frontend.host_code import def_line_of, zero_filled
from loom.frontend.partials import partial_sizes
from loom.frontend.picks import PickLowering
from loom.frontend.positions import PositionLowering, flat_gathers
from loom.frontend.scalars import ScalarLowering
from loom.frontend.store_races import check_store_races
from loom.frontend.tails import TailLowering
from loom.frontend.tiles import DTYPES, HELD_AS, IDENTITY, INDEX, Tile, argument_type, element_type, target_name
from loom.ir.dialect import SymOp

_UNSUPPORTED_HINTS = {
    "aten.view.default": " (a view or reshape of a tile inside the loop; expected tiles indexed in their final "
                         "shape, or the reshape done on the host before the loop: `x_2d = x.reshape(-1, n)`)",
    "aten.reshape.default": " (a reshape of a tile inside the loop; expected the reshape done on the host before "
                            "the loop: `x_2d = x.reshape(-1, n)`)",
}
"""What a refusal of these FX targets adds: what the user wrote, and what Loom accepts instead."""
_ACCUMULATING_MATMULS = {"aten.addmm.default", "aten.baddbmm.default", "dot"}
_SCALAR_OPS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
               "ge": operator.ge, "and_": operator.and_, "or_": operator.or_, "not_": operator.not_,
               "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
               "neg": operator.neg}


class KernelLowering(AccessLowering, AtomicLowering, ColumnStoreLowering, ComputeLowering, ControlFlowLowering,
                     PickLowering, PositionLowering, ScalarLowering, TailLowering):
    """Builds the stage-1 module of one traced kernel. One instance per lowering."""

    def __init__(self, kernel: TracedKernel, block_alignment: int):
        column_halves(kernel)  # `hl.split` / `hl.join` of a reshaped pair: column-half loads and stores
        self.k, batch_ids = with_batch_blocks_of_one(kernel)
        kernel = self.k
        self.batch_symbols = {kernel.blocks[i].symbol for i in batch_ids} | set(kernel.grid_indices)  # `hl.grid`
        self.alignment = block_alignment
        self.sym_of: dict[object, BlockInfo] = {b.symbol: b for b in kernel.blocks.values()}
        self.size_value: dict[int, SSAValue] = {}
        self.iv_value: dict[int, SSAValue] = {}
        self.globals: dict[str, SSAValue] = {}
        self.const_cache: dict[tuple, SSAValue] = {}
        self.whole_extent = _whole_extents(kernel)
        self.groups = head_groups(kernel)  # grid block id -> K/V group size (`h.begin // group`)
        self.group_iv: dict[int, SSAValue] = {}  # grid block id -> its `h_group` axis (`h // group`)
        self.in_group_iv: dict[int, SSAValue] = {}  # ... -> its `h_in_group` axis (`h % group`)
        self.counted_vectors: dict[tuple, Tile] = {}  # `PositionLowering.counted`
        self.partials: set[str] = set()  # per-tile partials tensors (`loom.frontend.partials`)
        self.flat_views: dict[str, str] = {}  # flat views read one element per row: view -> argument

    # ------------------------------------------------------------------ entry
    def lower(self) -> ModuleOp:
        k = self.k
        tensors = self._global_tensors()
        for name, t in tensors.items():
            if t.dtype not in DTYPES and t.dtype not in HELD_AS:
                raise UnsupportedError(
                    f"tensor `{name}` has element type {t.dtype}: expected one of "
                    f"{', '.join(str(d) for d in [*DTYPES, *HELD_AS])}", k.line_location(_def_line(k)))
            if not all(isinstance(d, int) for d in t.shape):
                raise UnsupportedError(
                    f"tensor `{name}` has sizes {list(t.shape)}, some of which Helion leaves symbolic (computed "
                    "from a scalar argument or a block size?); expected static sizes (Loom compiles for the sizes of "
                    "the example arguments), or one slice per tile of a grid loop sized by its block and indexed "
                    f"only by its id (`{name}[tile.id, :]`, per-tile partials)", k.line_location(_def_line(k)))
        filled_in = written_arguments(self.k)  # outputs the caller passed in
        self.zeroed = zero_filled(k.source_lines, _def_line(k))  # read before written: zeros (`hl.atomic_add`)
        check_read_back(self.k, [n for n in tensors if n not in k.host_tensors], self.zeroed)
        self.vectors = vector_layouts(self.k, tensors, self.batch_symbols)
        arg_types = [MemRefType(argument_type(t.dtype), laid_out(list(t.shape), self.vectors.get(name)))
                     for name, t in tensors.items()]
        entry = Block(arg_types=arg_types)
        for name, arg in zip(tensors, entry.args):
            arg.name_hint = ir_name(name)
            self.globals[name] = arg
        self.globals.update({view: self.globals[base] for view, base in self.flat_views.items()})
        self.b = Builder(InsertPoint.at_end(entry))
        self._declare_block_sizes()
        self._build_grid()
        self.b.insert(func.ReturnOp())

        # in the order the kernel returns them (`return out, aux`), the order reference() pairs them in
        written = [n for n in tensors if n not in k.host_tensors or n in filled_in]
        outputs = sorted(written, key=lambda n: k.returns.index(n) if n in k.returns else len(k.returns))
        fn = func.FuncOp(k.name, (arg_types, []), Region(entry))
        fn.attributes["loom.source"] = StringAttr(k.source_file)
        fn.attributes["loom.outputs"] = ArrayAttr([StringAttr(ir_name(n)) for n in outputs])
        held = {ir_name(n): StringAttr(str(t.dtype).removeprefix("torch.")) for n, t in tensors.items()
                if t.dtype in HELD_AS}
        if held:  # arguments the device holds in a wider format (`HELD_AS`): the report says so
            fn.attributes["loom.held"] = DictionaryAttr(held)
        if self.partials:  # laid out for the smallest block: the host code reads the chosen block's slices
            fn.attributes["loom.partials"] = ArrayAttr([StringAttr(ir_name(n)) for n in sorted(self.partials)])
        if self.vectors:
            fn.attributes["loom.vectors"] = DictionaryAttr({ir_name(n): StringAttr(v) for n, v in self.vectors.items()})
        if k.layouts:  # held permuted (`loom.frontend.layouts`): the host lays them out so and back
            fn.attributes["loom.layouts"] = DictionaryAttr({ir_name(n): DenseArrayBase.from_list(i64, list(order))
                                                            for n, order in k.layouts.items() if n in tensors})
        module = ModuleOp([fn])
        check_store_races(module, lambda loc: self.k.line_location(int(loc.rpartition(":")[2])))
        return module

    def _global_tensors(self) -> dict[str, torch.Tensor]:
        """Kernel arguments first (in signature order), then tensors the host code creates (outputs)."""
        used: dict[str, torch.Tensor] = {}
        graphs = self.k.graphs()
        names = [n.args[0] for g in graphs for n in g.nodes if target_name(n) == "_host_tensor"]
        self.flat_views = flat_gathers(self.k)  # read as their argument (`PositionLowering.flat_gather`)
        for name in self.k.param_names:
            views = [v for v, base in self.k.aliases.items()
                     if base == name and v in names and v not in self.flat_views]
            direct = name in names or name in self.flat_views.values()
            if len(views) + direct > 1:
                raise UnsupportedError(
                    f"argument `{name}` is read both directly and as a host-side reshape ({', '.join(views)}); "
                    "expected one of them", self.k.line_location(_def_line(self.k)))
            for key in ([name] if direct else views):  # a reshape takes its argument's place
                used[key] = self.k.host_tensors[key]
        for g in graphs:
            for n in g.nodes:
                if target_name(n) == "_host_tensor" and n.args[0] not in used and n.args[0] not in self.flat_views:
                    used[n.args[0]] = self._static(n.args[0], n.meta["val"])
        return used

    def _static(self, name: str, tensor: torch.Tensor) -> torch.Tensor:
        """A tensor the host code creates, with sizes computed from scalar arguments (`torch.empty([batch,
        heads, ...])`) replaced by the arguments' values, or sized by a grid loop's block at its largest (per-tile
        partials, `loom.frontend.partials`); unchanged when a size stays unknown."""
        sizes = [d if isinstance(d, int) else _scalar_value(d.node.expr, self.k.scalars) for d in tensor.shape]
        if all(isinstance(d, int) for d in tensor.shape):
            return tensor
        if not all(isinstance(d, int) for d in sizes):
            grid = [self.k.blocks[i] for i in self.k.grid_block_ids]
            accesses = [n for nodes in host_accesses(self.k).get(name, {}).values() for n in nodes]
            partials = partial_sizes(tensor, accesses, {b.symbol for b in grid if b.fixed is None},
                                     {b.symbol: b.extent for b in grid}, self.alignment)
            if partials is None:
                return tensor
            self.partials.add(name)
            return partials
        return torch.empty(sizes, dtype=tensor.dtype, device="meta")

    # ------------------------------------------------------------ block sizes
    def _tiled_blocks(self) -> list[BlockInfo]:
        ids = list(self.k.grid_block_ids) + [i for loop in self.k.loops.values() for i in loop.block_ids]
        return [self.k.blocks[i] for i in ids]

    def _declare_block_sizes(self) -> None:
        loop_ids = {i for loop in self.k.loops.values() for i in loop.block_ids}
        masked = self.masked_block_ids() | self.exact_block_ids()
        for block in self._tiled_blocks():
            if block.fixed is not None:
                self.size_value[block.block_id] = self.const(block.fixed)
            else:
                op = self.b.insert(SymOp(block.label, block.extent, reduction=block.block_id in loop_ids,
                                         masked=block.block_id in masked))
                self.size_value[block.block_id] = op.res

    # ---------------------------------------------------------------- helpers
    def const(self, value: int) -> SSAValue:
        key = ("index", value)
        if key not in self.const_cache:
            self.const_cache[key] = self.b.insert(arith.ConstantOp.from_int_and_width(value, INDEX)).result
        return self.const_cache[key]

    def fconst(self, value: float, type_: Attribute) -> SSAValue:
        return self.b.insert(arith.ConstantOp(FloatAttr(float(value), type_))).result

    def located(self, op: Operation, node: torch.fx.Node | None) -> Operation:
        loc = self.k.location(node)
        if loc is not None:
            op.attributes["loom.loc"] = StringAttr(f"{os.path.basename(loc.file)}:{loc.line}")
        return self.b.insert(op)

    def trip_count(self, block: BlockInfo, extent: int) -> SSAValue:
        if block.fixed is not None:
            return self.const(-(-extent // block.fixed))
        op = arith.CeilDivUIOp(self.const(extent), self.size_value[block.block_id])
        return self.b.insert(op).result

    def bounded_trip_count(self, block: BlockInfo, node: torch.fx.Node) -> SSAValue:
        """Trips of `hl.tile(0, outer.end)`: ceil(min((i + 1) * outer block, outer extent) / block), i the
        outer tile's index; the solver keeps one of the two blocks a divisor of the other (`loom.until`)."""
        outer = self.k.blocks[block.bounded_by]
        if outer.block_id not in self.k.grid_block_ids or block.fixed is not None or outer.fixed is not None:
            raise UnsupportedError(f"a loop to `{outer.label}.end` needs `{outer.label}` to be a tile of the launch "
                                   "grid and both block sizes left to the solver", self.k.location(node))
        if block.from_begin:  # `hl.tile(outer.begin, n)`: ceil(min(n - i * outer block, n) / block) trips
            end = self.b.insert(arith.SubiOp(self.const(block.extent), self.tile_start(outer))).result
            end = self.b.insert(arith.MinUIOp(end, self.const(block.extent))).result
            return self.b.insert(arith.CeilDivUIOp(end, self.size_value[block.block_id])).result
        following = self.b.insert(arith.AddiOp(self.iv_value[outer.block_id], self.const(1))).result
        end = self.b.insert(arith.MuliOp(following, self.size_value[outer.block_id])).result
        end = self.b.insert(arith.MinUIOp(end, self.const(outer.extent))).result
        return self.b.insert(arith.CeilDivUIOp(end, self.size_value[block.block_id])).result

    def within_trip_count(self, block: BlockInfo, node: torch.fx.Node) -> SSAValue:
        """Trips of `hl.tile(outer.begin, outer.end)`: ceil(outer block / block); the solver keeps the block a
        divisor of the outer one (`loom.within`), so every trip is a whole block."""
        outer = self.k.blocks[block.within]
        if outer.block_id not in self.iv_value or block.fixed is not None or outer.fixed is not None:
            raise UnsupportedError(f"a loop over `{outer.label}` needs `{outer.label}` to be an enclosing tile and "
                                   "both block sizes left to the solver (`block_size=None`)", self.k.location(node))
        return self.b.insert(arith.CeilDivUIOp(self.size_value[outer.block_id], self.size_value[block.block_id])).result

    def dim_of(self, size: object) -> object:
        """A tensor dimension from FX metadata: a static int or the BlockInfo of a block-size symbol."""
        if isinstance(size, int):
            return self.whole_extent.get(size, size)
        expr = size.node.expr if isinstance(size, torch.SymInt) else size
        if expr.is_Integer:
            return self.whole_extent.get(int(expr), int(expr))
        block = self.sym_of.get(expr)
        if block is None:
            raise UnsupportedError(f"a tile dimension of size {expr} is not a block size of the kernel")
        if block.fixed is not None:
            return block.fixed
        if block.block_id not in self.size_value:
            return block.extent  # a block no loop tiles (`w[:, :]`, `x[tile_m, :]`): the whole dimension
        return block

    def is_batch(self, size: object) -> bool:
        """A dimension of an FX shape that is a batch block's (`loom.frontend.batch_blocks`)."""
        expr = size.node.expr if isinstance(size, torch.SymInt) else size
        return expr in self.batch_symbols

    def dims_of(self, shape) -> list:
        """The tile dimensions of an FX value's shape: `dim_of` of each, batch dimensions left out."""
        return [self.dim_of(s) for s in shape if not self.is_batch(s)]

    def batch_positions(self, node: torch.fx.Node) -> list[int]:
        """The positions of an FX value's shape that are batch dimensions (absent from its tile)."""
        return [i for i, s in enumerate(node.meta["val"].shape) if self.is_batch(s)]

    def tensor_type(self, dims: list, dtype: Attribute) -> TensorType:
        return TensorType(dtype, [d if isinstance(d, int) else DYNAMIC_INDEX for d in dims])

    def dynamic_sizes(self, dims: list) -> list[SSAValue]:
        return [self.size_value[d.block_id] for d in dims if not isinstance(d, int)]

    def empty(self, dims: list, dtype: Attribute) -> SSAValue:
        op = tensor.EmptyOp(self.dynamic_sizes(dims), self.tensor_type(dims, dtype))
        return self.b.insert(op).tensor

    def filled(self, dims: list, dtype: Attribute, value: float, node: torch.fx.Node) -> SSAValue:
        init = self.empty(dims, dtype)
        cst = self.fconst(value, dtype)
        result = self.located(FillOp([cst], [init], [init.type]), node).res[0]
        result.name_hint = f"{_value_name(node, {})}_init"  # overwritten when the fill is the node itself
        return result

    # ------------------------------------------------------------------- grid
    def _build_grid(self) -> None:
        axes = []  # (label, trip count, block, group): a grouped head tile is two axes (`loom.frontend.head_groups`)
        for block in (self.k.blocks[i] for i in self.k.grid_block_ids):
            group = self.groups.get(block.block_id)
            if group is None:
                axes.append((block.label, self.trip_count(block, block.extent), block, None))
            else:
                axes += [(f"{block.label}_group", self.const(block.extent // group), block, group),
                         (f"{block.label}_in_group", self.const(group), block, None)]
        body = Block(arg_types=[INDEX] * len(axes))
        inner = Builder(InsertPoint.at_end(body))
        for (label, _, block, group), iv in zip(axes, body.args):
            iv.name_hint = f"{label}_idx"
            if group is not None:
                self.group_iv[block.block_id] = iv
            elif block.block_id in self.group_iv:  # h = h_group * group + h_in_group
                self.in_group_iv[block.block_id] = iv
                scaled = inner.insert(arith.MuliOp(self.group_iv[block.block_id],
                                                   self.const(self.groups[block.block_id]))).result
                self.iv_value[block.block_id] = inner.insert(arith.AddiOp(scaled, iv)).result
            else:
                self.iv_value[block.block_id] = iv
        counts = [count for _, count, _, _ in axes]
        n = len(axes)
        groups = DenseIntElementsAttr.from_list(VectorType(i32, [n]), [1] * n)
        parallel = affine.ParallelOp.create(
            operands=counts,
            properties={
                "reductions": ArrayAttr([]),
                "lowerBoundsMap": AffineMapAttr(AffineMap(0, 0, tuple(AffineExpr.constant(0) for _ in axes))),
                "lowerBoundsGroups": groups,
                "upperBoundsMap": AffineMapAttr(AffineMap(0, n, tuple(AffineExpr.symbol(i) for i in range(n)))),
                "upperBoundsGroups": groups,
                "steps": ArrayAttr([IntegerAttr(1, i64)] * n),
            },
            regions=[Region(body)],
        )
        parallel.attributes["loom.grid"] = ArrayAttr([StringAttr(label) for label, _, _, _ in axes])
        self.b.insert(parallel)
        outer = self.b
        self.b = Builder(InsertPoint.at_end(body))
        self.const_cache = dict(self.const_cache)  # outer values dominate the body
        self.lower_graph(self.k.root, {})
        self.b.insert(affine.YieldOp.get())
        self.b = outer

    # ------------------------------------------------------------ FX walking
    def lower_graph(self, graph: torch.fx.Graph, env: dict) -> list:
        outer, self.pending_columns = self.pending_columns, []  # the block's column stores, written at its end
        try:
            return self.lower_nodes(graph, env)
        finally:
            self.pending_columns = outer

    def lower_nodes(self, graph: torch.fx.Graph, env: dict) -> list:
        fused = _fusable_matmuls(graph)
        for node in graph.nodes:
            if node.op == "placeholder":
                continue
            if node.op == "output":
                self.flush_columns()
                return [env[a] for a in (node.args[0] or [])]
            if node in fused.skipped:
                continue
            if node in fused.alias:
                env[node] = env[fused.alias[node]]
                continue
            try:
                result = self.lower_node(node, env, fused)
            except LoomError as err:
                if err.location is None:  # raised where the node was not known: the node's line
                    err.location = self.k.location(node)
                raise
            if isinstance(result, Tile) and result.value.name_hint is None:
                result.value.name_hint = _value_name(node, env)
            env[node] = result
        self.flush_columns()
        return []

    def lower_node(self, node: torch.fx.Node, env: dict, fused: _Fusion) -> object:
        name = target_name(node)
        if self.is_positional(node, env):
            return self.lower_position(node, env)
        if name == "aten.scalar_tensor.default":
            return node.args[0]  # a number as a 0-d tensor (`torch.where(cond, x, float("-inf"))`)
        if name == "_mask_to":
            return self.tail_mask(node, env)
        if name in IDENTITY:
            return env[node.args[0]]
        if name == "_host_tensor":
            return self.globals[node.args[0]]
        if name == "_get_symnode":
            value = _scalar_value(node.args[0], self.k.scalars)
            if value is not None:
                return value  # a scalar kernel argument (`eps`) or an expression of them (`1 - beta`)
        symbolic = isinstance(node.meta.get("val"), torch.SymInt)
        if name in ("_get_symnode", "aten.sym_size.int", "tile_begin") or symbolic:
            return node  # index expressions are resolved where a load or store uses them
        if getattr(node.target, "__module__", None) == "_operator" and name in _SCALAR_OPS:
            values = [env.get(a, a) if isinstance(a, torch.fx.Node) else a for a in node.args]
            if all(isinstance(v, (int, float)) for v in values):
                return _SCALAR_OPS[name](*values)  # arithmetic on compile-time scalars (`beta != 0.0`)
            return node
        if name == "_inductor_lowering_extra":
            return None  # the operand list of a whole-dimension reduction, read by `reduction_input`
        if name == "_if":
            return self.lower_if(node, env)
        if name == "load":
            return self.lower_load(node, env)
        if name == "store":
            self.lower_store(node, env)
            return None
        if name == "atomic_add":
            self.lower_atomic_add(node, env)
            return None
        if name in ("full", "aten.full.default"):  # hl.full, and torch.full_like / zeros_like / ones_like
            value = node.meta["val"]
            dims = self.dims_of(value.shape)
            tile = Tile(self.filled(dims, element_type(value.dtype), node.args[1], node), dims)
            tile.value.name_hint = None
            return tile
        if name == "_for_loop":
            return self.lower_loop(node, env)
        if name == "getitem":
            return env[node.args[0]][node.args[1]]
        if name == "_phi":  # after a loop: (initial value, loop result); after a folded if: one is not taken
            lhs, rhs = env[node.args[0]], env[node.args[1]]
            return lhs if rhs is NOT_TAKEN else rhs
        if name == "subscript":
            return self.lower_subscript(node, env)
        if node in fused.accumulate:
            lhs, rhs, acc = fused.accumulate[node]
            return self.matmul(env[lhs], env[rhs], env[acc], node)
        if name in MATMULS:
            out_dtype = fused.widened.get(node, node.meta["val"].dtype)
            dims = self.dims_of(node.meta["val"].shape)
            acc = Tile(self.filled(dims, element_type(out_dtype), 0.0, node), dims)
            result = self.matmul(env[node.args[0]], env[node.args[1]], acc, node)
            return result
        if name in _ACCUMULATING_MATMULS:
            return self.lower_accumulating_matmul(node, env)
        if name in RELABELS:
            return getattr(self, RELABELS[name])(node, env)
        if name in ("aten.where.self", "aten.masked_fill.Scalar"):  # a condition on data (positions went above)
            return self.lower_where(node, env)
        if elementwise_op(name) is not None or name in ("prims.convert_element_type.default", *REWRITTEN):
            for arg in node.args[:2]:
                if isinstance(arg, torch.fx.Node) and isinstance(env.get(arg), torch.fx.Node):
                    raise UnsupportedError(
                        f"the scalar operand `{arg.name}` of `{name}` is not known when compiling; expected a tile, "
                        "a number or a scalar kernel argument", self.k.location(node))
            return self.elementwise(node, env)
        if reduction_op(name) is not None:
            return self.reduction(node, env)
        if name == "getitem" or node.op != "call_function":
            raise UnsupportedError(f"unexpected FX node {node.format_node()}", self.k.location(node))
        raise UnsupportedError(f"operation `{name}` is not supported by Loom yet{_UNSUPPORTED_HINTS.get(name, '')}",
                               self.k.location(node))

    def lower_accumulating_matmul(self, node: torch.fx.Node, env: dict) -> Tile:
        """`torch.addmm(acc, a, b)`, `torch.baddbmm(acc, a, b)` and `hl.dot(a, b, acc=acc)`: the same
        accumulating matmul as `acc + a @ b` (the matrix engine accumulates into `acc`'s dtype)."""
        name = target_name(node)
        if name == "dot":
            lhs, rhs, acc = node.args[0], node.args[1], node.args[2] if len(node.args) > 2 else node.kwargs.get("acc")
        else:
            acc, lhs, rhs = node.args[:3]
            scales = {"beta": node.kwargs.get("beta", 1), "alpha": node.kwargs.get("alpha", 1)}
            if any(v != 1 for v in scales.values()):
                found = ", ".join(f"{k}={v}" for k, v in scales.items() if v != 1)
                raise UnsupportedError(f"`{name}` with {found} is not supported yet; expected beta=1 and alpha=1 "
                                       "(write the scaling as a separate multiplication)", self.k.location(node))
        dims = self.dims_of(node.meta["val"].shape)
        if len(dims) != 2:
            raise UnsupportedError(
                f"`{name}` on {len(dims)}-D tiles is not supported yet; expected 2-D tiles, or 3-D tiles whose "
                "leading dimension a batch tile indexes (`a[tile_b, tile_m, tile_k]`)", self.k.location(node))
        if acc is None:  # hl.dot without acc: a product into its result dtype
            acc_tile = Tile(self.filled(dims, element_type(node.meta["val"].dtype), 0.0, node), dims)
        else:
            acc_tile = env[acc]
            if node.meta["val"].dtype != acc.meta["val"].dtype:
                raise UnsupportedError(
                    f"`{name}` returns {node.meta['val'].dtype} but accumulates into {acc.meta['val'].dtype}; "
                    "expected the result in the accumulator's dtype", self.k.location(node))
        return self.matmul(env[lhs], env[rhs], acc_tile, node)


def _whole_extents(kernel: TracedKernel) -> dict[int, int]:
    """Helion sizes a whole dimension no loop tiles (`q[b, h, :, :]` of a head dimension of 96) to the next
    power of two (128) in its tile shapes, as Triton needs; Loom pads to whole tiles instead. That power of
    two -> the dimension's real extent, for each such dimension whose extent is not a power of two."""
    tiled = set(kernel.grid_block_ids) | {i for loop in kernel.loops.values() for i in loop.block_ids}
    out: dict[int, int] = {}
    for block in kernel.blocks.values():
        if block.block_id in tiled or block.fixed is not None or block.extent & (block.extent - 1) == 0:
            continue
        power = 1 << (block.extent - 1).bit_length()
        if out.get(power, block.extent) != block.extent:
            raise UnsupportedError(f"two whole dimensions of {out[power]} and {block.extent} elements both appear "
                                   f"as {power} in Helion's tile shapes; expected at most one whole dimension "
                                   f"between {power // 2} and {power}", kernel.line_location(_def_line(kernel)))
        out[power] = block.extent
    return out


def _scalar_value(expr: object, scalars: dict) -> object:
    """The number a Helion symbol or sympy expression of symbols stands for, when every symbol is a
    compile-time scalar (`zuf0` for `beta`, `1 - zuf0`); None otherwise (block sizes, sizes)."""
    if str(expr) in scalars:
        return scalars[str(expr)]
    if isinstance(expr, str):  # Helion names a symbolic expression by its text
        import sympy

        try:
            expr = sympy.sympify(expr)
        except (sympy.SympifyError, TypeError, SyntaxError):
            return None
    free = getattr(expr, "free_symbols", None)
    if not free or not all(str(s) in scalars for s in free):
        return None
    value = expr.subs({s: scalars[str(s)] for s in free})
    if getattr(value, "is_Boolean", False):
        return bool(value)
    return int(value) if value.is_Integer else float(value) if value.is_Number else None


def _value_name(node: torch.fx.Node, env: dict) -> str:
    """The SSA name of a tile: the FX node's name, which Helion takes from the source variable;
    a dtype conversion is named after what it converts (`acc_bf16`)."""
    if target_name(node) == "prims.convert_element_type.default":
        source = env.get(node.args[0])
        base = source.value.name_hint if isinstance(source, Tile) and source.value.name_hint else "t"
        return f"{base}_{str(element_type(HELD_AS.get(node.args[1], node.args[1])))}"
    return node.name.strip("_") or "t"


def check_dram_capacity(kernel: TracedKernel, arch) -> None:
    """Every global tensor (arguments and the outputs the host code creates), its last two dims padded
    to whole tiles, must fit `arch.dram.size_bytes` together; raises `CapacityError` at the kernel."""
    tensors = KernelLowering(kernel, arch.tiling.block_alignment)._global_tensors()
    tile = (arch.tiling.tile_rows, arch.tiling.tile_cols)
    sizes = {}
    for name, t in tensors.items():
        shape = list(t.shape)
        for i, step in zip(range(len(shape) - min(2, len(shape)), len(shape)), tile[-min(2, len(shape)):]):
            shape[i] = -(-int(shape[i]) // step) * step
        sizes[name] = math.prod(int(d) for d in shape) * t.element_size()
    total = sum(sizes.values())
    if total > arch.dram.size_bytes:
        parts = ", ".join(f"{n} {_gib(b)}" for n, b in sizes.items())
        raise CapacityError(
            f"the kernel's tensors need {total} bytes ({_gib(total)}: {parts}) of DRAM; expected at most "
            f"dram.size_bytes = {arch.dram.size_bytes} bytes ({_gib(arch.dram.size_bytes)}) of {arch.name}",
            kernel.line_location(_def_line(kernel)))


def _def_line(kernel: TracedKernel) -> int:
    """The `def` line of the kernel (its first line is the decorator's)."""
    return def_line_of(kernel.source_lines, kernel.first_line)


def _gib(n: int) -> str:
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.2f} MiB"


def lower_kernel(kernel: TracedKernel, block_alignment: int) -> ModuleOp:
    """Stage 1 entry point: the symbolic MLIR module of a traced kernel."""
    module = KernelLowering(kernel, block_alignment).lower()
    module.verify()
    return module
