"""Everything Loom needs from Helion, in one room: bind a kernel on CPU and read its Device IR.

This is the only module that touches Helion internals. It returns a
`TracedKernel`: the FX graphs, the block sizes with their source labels, the
launch grid, the host tensors by name, and the source file and lines, so that
the lowering never needs to know how Helion stores them.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.fx

from loom.errors import KernelFileError, ShapeError, SourceLocation, UnsupportedError
from loom.frontend.host_code import def_line_of, grid_offset_line, read_host_return
from loom.frontend.layouts import UNPERMUTED, permute_layouts
from loom.frontend.split_sums import merge_summed_grid_dims, split_blockers


@dataclass(frozen=True)
class BlockInfo:
    """One Helion block size: a tile loop of the source, named by its variable (`tile_m`)."""

    block_id: int
    label: str
    extent: int  # the size of the dimension it tiles
    fixed: int | None  # a block size written in the source (`block_size=[1, …]`), else None
    symbol: object  # the sympy symbol Helion uses for the block size in FX shapes
    bounded_by: int | None = None  # a loop to an outer tile's end (`hl.tile(0, tile_m.end)`): that block's id
    within: int | None = None  # a loop over an outer tile (`hl.tile(tile_m.begin, tile_m.end)`): that block's id
    from_begin: bool = False  # with bounded_by: the loop runs from that tile's start to `extent` instead


@dataclass
class LoopGraph:
    """The body of a device loop (`for tile_k in hl.tile(k)`): its FX graph and the blocks it iterates."""

    graph: torch.fx.Graph
    block_ids: list[int]


@dataclass
class TracedKernel:
    name: str
    source_file: str
    source_lines: list[str]
    first_line: int
    root: torch.fx.Graph
    grid_block_ids: list[int]
    loops: dict[int, LoopGraph]
    blocks: dict[int, BlockInfo]
    host_tensors: dict[str, torch.Tensor] = field(default_factory=dict)
    param_names: list[str] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)  # `x_2d = x.reshape(…)` in the host code -> "x"
    scalars: dict[str, object] = field(default_factory=dict)  # Helion's symbol (`zuf0`) -> the argument's value
    branches: dict[int, object] = field(default_factory=dict)  # graph id -> Helion's If/ElseGraphInfo
    returns: list[str] = field(default_factory=list)  # the tensors the kernel returns, in order (`return out, aux`)
    grid_indices: dict[object, int] = field(default_factory=dict)  # `i` of `for i in hl.grid(n)` -> its block id
    layouts: dict[str, tuple[int, ...]] = field(default_factory=dict)  # tensors held permuted (`layouts`)
    exact_blocks: set[int] = field(default_factory=set)  # blocks that must tile their extent (no tail)
    tile_scalars: dict[object, tuple[str, int]] = field(default_factory=dict)  # Helion's symbol of a tile's
    # `.id` or `.begin` where it stands alone in an index expression (`min(t.begin + 64, n)`) -> ("id" or
    # "begin", block id)

    def graphs(self) -> list[torch.fx.Graph]:
        """Every device graph: the root, each loop body and each branch."""
        return ([self.root] + [loop.graph for loop in self.loops.values()]
                + [branch.graph for branch in self.branches.values()])

    def location(self, node: torch.fx.Node | None) -> SourceLocation | None:
        """The user's source line of an FX node (Helion records `file:line` on every node)."""
        if node is None:
            return None
        loc = node.meta.get("location")
        loc = str(loc) if loc is not None else ""
        if ":" not in loc or not loc.rpartition(":")[2].isdigit():
            return None
        file, _, line = loc.rpartition(":")
        return self.line_location(int(line), file)

    def line_location(self, line: int, file: str | None = None) -> SourceLocation:
        code = self.source_lines[line - 1] if 0 < line <= len(self.source_lines) else ""
        return SourceLocation(file or self.source_file, line, code)

    def tile_loop_line(self, label: str) -> int:
        """The line of the `for … in hl.tile(…)` statement that introduces `label`."""
        pattern = re.compile(rf"^\s*for\b[^:]*\b{re.escape(label)}\b[^:]*\bin\s+hl\.(tile|grid)\(")
        for offset, text in enumerate(self.source_lines[self.first_line - 1 :]):
            if pattern.search(text):
                return self.first_line + offset
        return self.first_line


_HELION_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def _helion_error_location(err: BaseException, fallback_file: str, lines: list[str]) -> SourceLocation | None:
    match = None
    for match in _HELION_LINE.finditer(str(err)):  # noqa: B007 - the last match is used below
        pass  # keep the innermost frame Helion reports
    if match is None:
        return None
    line = int(match.group(2))
    code = lines[line - 1] if 0 < line <= len(lines) else ""
    return SourceLocation(match.group(1), line, code)


def trace_kernel(kernel: object, args: tuple) -> TracedKernel:
    """Bind `kernel` to example `args` on CPU (no GPU, no code generation) and collect its Device IR."""
    import helion  # noqa: F401  (imported here so that `import loom` stays fast)
    from helion import exc as helion_exc

    fn = getattr(kernel, "fn", None)
    if fn is None or not hasattr(kernel, "bind"):
        raise KernelFileError(f"{kernel!r} is not a @helion.kernel function")
    source_file = os.path.relpath(inspect.getsourcefile(fn) or "<unknown>")
    source_lines, _ = _read_source(fn)
    first_line = fn.__code__.co_firstlineno
    def_line = def_line_of(source_lines, first_line)

    def at(line: int) -> SourceLocation:
        return SourceLocation(source_file, line, source_lines[line - 1] if 0 < line <= len(source_lines) else "")

    settings = getattr(kernel, "settings", None)
    if getattr(settings, "static_shapes", True) is False:
        # Loom compiles for the example's sizes: bind a copy of the kernel with static shapes, and say so
        kernel = _with_static_shapes(kernel)
        sys.stderr.write(f"note: kernel '{fn.__name__}' is declared with static_shapes=False; Loom compiles it "
                         "for the sizes of the example arguments\n")
    params = list(inspect.signature(fn).parameters)
    try:
        inspect.signature(fn).bind(*args)
    except TypeError as err:
        raise KernelFileError(
            f"the example arguments do not fit kernel '{fn.__name__}({', '.join(params)})': {err}; expected "
            f"inputs() to return one argument per parameter, found {len(args)} argument(s)", at(def_line)) from None
    for name, arg in zip(params, args):
        if isinstance(arg, torch.Tensor) and 0 in arg.shape:
            dim = list(arg.shape).index(0)
            raise ShapeError(
                f"argument `{name}` has shape {list(arg.shape)}: expected every dimension to be at least 1, "
                f"found size 0 in dimension {dim} (a zero-size tensor leaves nothing to compute)", at(def_line))

    warnings = io.StringIO()
    try:
        with contextlib.redirect_stderr(warnings):  # Helion prints warnings; keep them unless it refuses
            bound = _bind(kernel, args)
            device_ir = bound.host_function.device_ir
    except (helion_exc.Base, NotImplementedError) as err:  # Helion's compiler refuses some forms this way
        message = str(err).split("\nWhile processing:")[0].strip()
        where = _helion_error_location(err, source_file, source_lines) or at(def_line)
        kind = "" if isinstance(err, helion_exc.Base) else f"{type(err).__name__}: "
        raise UnsupportedError(f"Helion rejected the kernel: {kind}{message}", where) from err
    sys.stderr.write(warnings.getvalue())
    for graph_info in device_ir.graphs:
        _restore_shared_operands(graph_info.graph)

    if not device_ir.grid_block_ids or not device_ir.root_ids:
        raise UnsupportedError(
            f"kernel '{fn.__name__}' has no `for … in hl.tile(…)` launch grid; Loom compiles tile-based SPMD kernels",
            SourceLocation(source_file, first_line, source_lines[first_line - 1] if source_lines else ""),
        )
    if len(device_ir.root_ids) != 1:
        raise UnsupportedError(
            f"kernel '{fn.__name__}' has {len(device_ir.root_ids)} top-level hl.tile loops; Loom supports one",
            SourceLocation(source_file, first_line),
        )

    host_return = read_host_return(source_lines, def_line)
    offset_line = grid_offset_line(source_lines, def_line)
    if offset_line is not None:  # Helion leaves the start out of the Device IR: it would be read as 0
        raise UnsupportedError("a launch grid that starts elsewhere than 0 (`hl.tile(begin, end)` at the top "
                               "level) is not supported yet; expected `hl.tile(end)` with the offset in the indices "
                               "(`x[tile_m.index + begin]`)", at(offset_line))

    blocks = {}
    block_vars = {info.symbol() for info in bound.env.block_sizes}
    summed = merge_summed_grid_dims(device_ir, bound.env.block_sizes)  # split-K: `loom.frontend.split_sums`
    labels = {info.block_id: sorted(info.debug_names)[0] if info.debug_names else f"block_{info.block_id}"
              for info in bound.env.block_sizes}
    for block_id, reason in split_blockers(device_ir).items():
        add = next(n for g in device_ir.graphs for n in g.graph.nodes if _target_name(n) == "atomic_add")
        raise UnsupportedError(f"the atomic adds sum over `{labels[block_id]}`, a grid dimension that a loop walks: "
                               f"a split reduction, which Loom folds into one loop over the whole extent, but {reason}",
                               _node_location(add, source_file, source_lines) or at(def_line))
    folded = {grid for grid, _ in summed.values()}
    bounded, within, banded, shifted, exact = _bounded_loops(device_ir, bound.env.block_sizes)
    for info in bound.env.block_sizes:
        if info.block_id in folded:
            continue  # a grid dimension the atomic adds sum over: folded into the loop that walked it
        source = info.block_size_source
        fixed = getattr(source, "value", None) if type(source).__name__ == "FixedBlockSizeSource" else None
        label = labels[info.block_id]
        if info.block_id in summed:  # the walk, now over the whole extent; a block size written for it kept
            blocks[info.block_id] = BlockInfo(info.block_id, label, summed[info.block_id][1],
                                              fixed if isinstance(fixed, int) else None, info.symbol())
            continue
        if isinstance(info.size, torch.SymInt) and info.size.node.expr in block_vars:
            continue  # a tile re-derived from a block's size inside a loop (`tile_m.index` there): that block
        if fixed is not None and not isinstance(fixed, int):
            raise UnsupportedError(
                f"`{label}` has the block size {fixed}, computed from a tunable (`hl.register_tunable`) or "
                "another value Helion leaves symbolic; expected a block size written as a number or left to the "
                "solver (`block_size=None`)", at(def_line))
        if bounded.get(info.block_id) in blocks:  # it runs up to the outer tile's end: at most its extent
            outer = blocks[bounded[info.block_id]]
            blocks[info.block_id] = BlockInfo(info.block_id, label, outer.extent, fixed, info.symbol(),
                                              bounded_by=outer.block_id)
            continue
        if banded.get(info.block_id, (None,))[0] in blocks:  # from the outer tile's start to a static end
            outer, end = blocks[banded[info.block_id][0]], banded[info.block_id][1]
            blocks[info.block_id] = BlockInfo(info.block_id, label, end, fixed, info.symbol(),
                                              bounded_by=outer.block_id, from_begin=True)
            continue
        if within.get(info.block_id) in blocks:  # it walks the outer tile in smaller tiles: at most its extent
            outer = blocks[within[info.block_id]]
            blocks[info.block_id] = BlockInfo(info.block_id, label, outer.extent, fixed, info.symbol(),
                                              within=outer.block_id)
            continue
        if not isinstance(info.size, int) and info.block_id in shifted:
            loop = shifted[info.block_id]
            raise UnsupportedError(
                f"`{label}` runs from {_bound_text(loop.args[1][0], bound.env.block_sizes)} to "
                f"{_bound_text(loop.args[2][0], bound.env.block_sizes)}: not supported yet; expected a loop from 0 to "
                "a static extent or to an enclosing tile's end (`hl.tile(0, tile_m.end)`), or from an enclosing "
                "tile's start to a static extent or to its end (`hl.tile(tile_m.begin, n)`, "
                "`hl.tile(tile_m.begin, tile_m.end)`)", _node_location(loop, source_file, source_lines))
        if not isinstance(info.size, int):
            raise UnsupportedError(
                f"`{label}` tiles a dimension of "
                + (f"symbolic size {info.size}" if info.size is not None else "a size Helion cannot know before the "
                   "kernel runs (read from tensor data: a jagged or grouped layout?)")
                + "; expected a static size (Loom compiles for the sizes of the example arguments)", at(def_line))
        extent = info.size
        blocks[info.block_id] = BlockInfo(info.block_id, label, extent, fixed, info.symbol())

    loops = {}
    branches = {}
    root = None
    for graph_id, graph_info in enumerate(device_ir.graphs):
        kind = type(graph_info).__name__
        if kind == "ForLoopGraphInfo":
            loops[graph_id] = LoopGraph(graph_info.graph, list(graph_info.block_ids))
        elif kind == "RootGraphInfo":
            root = graph_info.graph
        elif kind in ("IfGraphInfo", "ElseGraphInfo"):
            branches[graph_id] = graph_info  # folded when the condition is known at compile time
        elif kind == "ReductionLoopGraphInfo":
            continue  # Helion's rolled alternative of a whole-row reduction; the root keeps the persistent form
        else:
            node = next(iter(graph_info.graph.nodes), None)
            what = ("a combine function (`hl.associative_scan`, `hl.reduce`: Helion traces it as a helper graph)"
                    if kind == "HelperFunctionGraphInfo" else f"device control flow of kind {kind}")
            raise UnsupportedError(f"{what} is not supported yet",
                                   _node_location(node, source_file, source_lines) or at(def_line))

    host_tensors = {name: arg for name, arg in zip(params, args) if isinstance(arg, torch.Tensor)}
    host_tensors.update(closure_tensors(params, args))
    aliases = _host_views(device_ir, host_tensors, dict(zip(params, bound.fake_args)), source_lines, first_line, at)
    host_tensors.update({view: val for view, (_, val) in aliases.items()})
    layouts = permute_layouts([g.graph for g in device_ir.graphs], host_tensors, block_vars)
    call = inspect.signature(fn).bind(*args)
    call.apply_defaults()
    values = {**fn.__globals__, **call.arguments}
    scalars = {}  # a scalar argument (`eps`) or module constant is a symbol in the Device IR: its value is known
    values.setdefault("_source_module", sys.modules.get(fn.__module__))  # how Helion names the module's globals
    for imported in bound.host_function.global_imports.values():  # another module's globals (an epilogue's,
        values.setdefault(imported.alias, imported.value)  # defined elsewhere): `_global_source0.alpha`
    grid_indices = {}  # a grid loop's index is its own symbol, a scalar (Helion's GridOrigin)
    tile_scalars = {}
    for expr, origin in bound.host_function.expr_to_origin.items():
        if type(origin.origin).__name__ == "GridOrigin":
            grid_indices[expr] = origin.origin.block_id
        if type(origin.origin).__name__ in _TILE_SCALARS:
            tile_scalars[expr] = _TILE_SCALARS[type(origin.origin).__name__], origin.origin.block_id
        value = _origin_value(origin.origin, values)
        if isinstance(value, (int, float)):  # bools too: the conditions of branches folded at compile time
            scalars[str(expr)] = value
    return TracedKernel(
        name=fn.__name__,
        source_file=source_file,
        source_lines=source_lines,
        first_line=first_line,
        root=root,
        grid_block_ids=list(device_ir.grid_block_ids[0]),
        loops=loops,
        blocks=blocks,
        host_tensors=host_tensors,
        param_names=params,
        scalars=scalars,
        branches=branches,
        returns=host_return.names,
        grid_indices=grid_indices,
        layouts=layouts,
        tile_scalars=tile_scalars,
        exact_blocks=exact,
        aliases={view: base for view, (base, _) in aliases.items()},
    )


_MISSING = object()
_TILE_SCALARS = {"TileIdOrigin": "id", "TileBeginOrigin": "begin"}


def _bounded_loops(device_ir, block_sizes) -> tuple[dict, dict, dict, dict, set]:
    """Loop block id -> outer block id, for each device loop `hl.tile(0, tile_m.end)`: it starts at 0
    and ends where an enclosing tile ends (causal attention's keys up to the query block's last row);
    the same for each loop `hl.tile(tile_m.begin, tile_m.end)`, which walks an enclosing tile in smaller
    tiles; loop block id -> (outer block id, end) for each loop `hl.tile(tile_m.begin, n)`, n static (the
    mirror of the first: keys from the query block's first row); loop block id -> its `_for_loop`
    node, for each other loop that starts elsewhere than 0 or ends at an enclosing tile's start; and the
    outer blocks of loops to `(tile_m.id + 1) * block_m`, the tile's end only where no block has a tail."""
    by_var: dict = {}
    for info in block_sizes:
        by_var.setdefault(info.symbol(), info.block_id)  # a tile re-derived inside a loop comes later

    def block_of(size: object) -> int | None:  # the block whose size symbol `size`'s value is
        value = size.meta.get("val") if isinstance(size, torch.fx.Node) else None
        return by_var.get(value.node.expr) if isinstance(value, torch.SymInt) else None

    def outer_of(node, target: str) -> int | None:  # `tile_begin(tile_m)` / `tile_end(tile_m)`: tile_m's id
        if not isinstance(node, torch.fx.Node) or node.op != "call_function":
            return None  # (a loop graph's placeholder may carry the name `tile_begin`: an outer loop's value)
        if target == "tile_end" and _target_name(node) == "mul":  # `(tile_m.id + 1) * block_m`, its end too
            ends = [_next_id(a) for a in node.args if _next_id(a) is not None]
            return ends[0] if ends and ends[0] == next((block_of(a) for a in node.args if block_of(a) is not None),
                                                       None) else None
        return block_of(node.args[0]) if _target_name(node) == target else None

    def _next_id(node) -> int | None:  # `tile_m.id + 1`: tile_m's id
        if not isinstance(node, torch.fx.Node) or _target_name(node) != "add" or 1 not in node.args:
            return None
        tile_id = next((a for a in node.args if isinstance(a, torch.fx.Node)), None)
        return block_of(tile_id.args[0]) if tile_id is not None and _target_name(tile_id) == "tile_id" else None

    out, within, banded, shifted, exact = {}, {}, {}, {}, set()
    for graph_info in device_ir.graphs:
        for node in graph_info.graph.nodes:
            if _target_name(node) != "_for_loop":
                continue
            graph_id, begins, ends, _ = node.args
            inner = device_ir.graphs[graph_id].block_ids
            start = outer_of(begins[0], "tile_begin") if len(begins) == len(ends) == 1 else None
            if start is not None and start == outer_of(ends[0], "tile_end"):
                within[inner[0]] = start
                continue
            if start is not None and isinstance(ends[0], int):
                banded[inner[0]] = (start, ends[0])
                continue
            if any(begin != 0 for begin in begins) or any(outer_of(end, "tile_begin") is not None for end in ends):
                shifted.update({block: node for block in inner})  # (`hl.tile(0, tile_m.begin)` too)
            if begins == [0] and len(ends) == 1 and outer_of(ends[0], "tile_end") is not None:
                out[inner[0]] = outer_of(ends[0], "tile_end")
                if _target_name(ends[0]) == "mul":  # `(tile_m.id + 1) * block_m`: not clipped at the extent
                    exact.add(out[inner[0]])
    return out, within, banded, shifted, exact


def _bound_text(bound: object, block_sizes) -> str:
    """A loop bound as the user wrote it: `tile_m.begin` / `tile_m.end`, a number, or the value's name."""
    kind = _target_name(bound) if isinstance(bound, torch.fx.Node) else None
    if kind in ("tile_begin", "tile_end") and isinstance(bound.args[0], torch.fx.Node):
        size = bound.args[0].meta.get("val")
        names = [sorted(i.debug_names)[0] for i in block_sizes
                 if i.debug_names and isinstance(size, torch.SymInt) and i.symbol() == size.node.expr]
        return f"`{names[0] if names else 'a tile'}.{kind.removeprefix('tile_')}`"
    if isinstance(bound, int):
        return str(bound)
    return f"`{getattr(bound, 'name', bound)}` (a value Helion leaves symbolic: read from tensor data?)"


def _with_static_shapes(kernel):
    """The same kernel with `static_shapes=True` (its configs and other settings kept)."""
    import copy

    import helion

    settings = copy.copy(kernel.settings)
    settings.static_shapes = True
    return helion.Kernel(kernel.fn, configs=kernel.configs, settings=settings)


def _leading_part(view: torch.Tensor) -> bool:
    """A view that keeps the first elements of each dimension of its base, with the base's strides
    (`logits[:, :-1, :]`): its element [i, j, k] is the base's [i, j, k]."""
    base = view._base
    return view.storage_offset() == 0 and view.dim() == base.dim() and view.stride() == base.stride() \
        and all(v <= b for v, b in zip(view.shape, base.shape))


def _host_views(device_ir, arguments: dict, fakes: dict, lines: list[str], first_line: int, at) -> dict:
    """Tensors the device code reads that the host code made as views of others (`x_2d = x.reshape(…)`).
    A contiguous reshape of a contiguous argument is the argument's memory seen with another shape: it is
    returned as {view: (argument, its fake tensor)}. A leading part of an argument (`x[:, :-1, :]`, indexed
    from 0 with the argument's strides) is the argument itself: {view: (argument, the argument's fake)}. A
    contiguous reshape of a tensor the host code creates (`out_flat = out.view(-1)`) is an output of its own,
    which `loom run` hands back to the host code (`loom.host_epilogue`). Any other view is refused at the line
    that makes it."""
    aliases = {}
    for graph_info in device_ir.graphs:
        for node in graph_info.graph.nodes:
            if _target_name(node) != "_host_tensor" or node.args[0] in arguments:
                continue
            val = node.meta.get(UNPERMUTED, node.meta.get("val"))  # (as the host made it: a cached trace's too)
            if isinstance(val, torch.Tensor) and val._is_view():
                name = node.args[0]
                base = next((param for param, fake in fakes.items() if val._base is fake), None)
                if val.is_contiguous() and val._base.is_contiguous() and val.numel() == val._base.numel():
                    if base is not None:
                        aliases[name] = (base, val)
                    continue
                if base is not None and _leading_part(val):  # `x[:, :-1, :]`: indexed as `x` is, from 0
                    aliases[name] = (base, val._base)
                    continue
                pattern = re.compile(rf"^\s*{re.escape(name)}\s*(:[^=]*)?=[^=]")
                line = next((first_line + i for i, text in enumerate(lines[first_line - 1:]) if pattern.match(text)),
                            first_line)
                raise UnsupportedError(
                    f"`{name}` is a view of another tensor made in the host code (shape {list(val.shape)}); expected "
                    "the device loops to index the kernel's arguments and the tensors it creates "
                    "(torch.empty…) directly, or a contiguous reshape of them: other views made on the host are not "
                    "supported yet", at(line))
    return aliases


def _origin_value(origin: object, values: dict) -> object:
    """The Python value a Helion symbol origin names: an argument or global (`eps`), an attribute of one
    (`module.CONSTANT`), or a value a callable argument closes over; _MISSING when it names something else
    (a block size, a tensor's size)."""
    kind = type(origin).__name__
    if kind == "AttributeOrigin":
        base = _origin_value(origin.value, values)
        return _MISSING if base is _MISSING else getattr(base, origin.key, _MISSING)
    if kind == "ClosureOrigin":  # a value a callable argument closes over (an epilogue's `alpha`)
        cells = getattr(_origin_value(origin.value, values), "__closure__", None) or ()
        try:
            return cells[origin.key].cell_contents
        except (IndexError, TypeError, ValueError):  # no such cell, or an empty one
            return _MISSING
    name = getattr(origin, "name", None)
    return values.get(name, _MISSING) if isinstance(name, str) else _MISSING


_REAL_BYTES = 1 << 28  # real stand-ins up to this size are allocated; larger ones are broadcast views


def _bind(kernel, args: tuple):
    """`kernel.bind(args)`; if the arguments are meta tensors and Helion fails on them (some of its
    decompositions, e.g. `x > 0`, run real kernels while binding), bind again on CPU tensors of the same
    shapes and dtypes. Only shapes and dtypes reach the Device IR, so the values do not matter."""
    from helion import exc as helion_exc

    if not any(isinstance(a, torch.Tensor) and a.is_meta for a in args):
        return kernel.bind(args)
    try:
        return kernel.bind(args)
    except (helion_exc.Base, NotImplementedError, RuntimeError):
        return kernel.bind(tuple(_real_stand_in(a) for a in args))


def _real_stand_in(arg: object) -> object:
    if not isinstance(arg, torch.Tensor) or not arg.is_meta:
        return arg
    if arg.numel() * arg.element_size() <= _REAL_BYTES:
        return torch.zeros(arg.shape, dtype=arg.dtype)
    return torch.zeros((), dtype=arg.dtype).expand(arg.shape)  # no storage: a view of one element


def _restore_shared_operands(graph: torch.fx.Graph) -> None:
    """Helion's inductor lowering passes each input buffer once: in `x * x` it replaces the second `x`
    by None (`strip_unused_inputs`). Put it back where the op's schema needs a tensor and the node has
    exactly one other tensor operand, so that the graph reads as the source did."""
    for node in graph.nodes:
        schema = getattr(node.target, "_schema", None)
        if node.op != "call_function" or schema is None or None not in node.args:
            continue
        operands = list(dict.fromkeys(a for a in node.args if isinstance(a, torch.fx.Node)))
        if len(operands) != 1:
            continue
        args = list(node.args)
        for i, (arg, formal) in enumerate(zip(args, schema.arguments)):
            if arg is None and isinstance(formal.type, torch.TensorType):
                args[i] = operands[0]
        node.args = tuple(args)


def _target_name(node: torch.fx.Node | None) -> str:
    target = getattr(node, "target", None)
    return str(target) if type(target).__name__ == "OpOverload" else getattr(target, "__name__", str(target))


def ir_name(name: str) -> str:
    """A global tensor's name as the IR and the per-core programs spell it: characters MLIR names do not take
    (`epilogue.__closure__[0].cell_contents`) become `_`."""
    return re.sub(r"[^A-Za-z0-9_$.-]", "_", name)


def closure_tensors(params: list[str], args: tuple) -> dict[str, torch.Tensor]:
    """The tensors a callable argument closes over (`matmul(x, y, lambda acc, tile: acc + bias[tile[1]])`), by
    the name Helion gives them in the Device IR (`epilogue.__closure__[0].cell_contents`): inputs like the
    arguments themselves."""
    out = {}
    for name, arg in zip(params, args):
        for i, cell in enumerate(getattr(arg, "__closure__", None) or ()):
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if isinstance(value, torch.Tensor):
                out[f"{name}.__closure__[{i}].cell_contents"] = value
    return out


def _node_location(node: torch.fx.Node | None, source_file: str, lines: list[str]) -> SourceLocation | None:
    loc = str(node.meta.get("location") or "") if node is not None else ""
    file, _, line = loc.rpartition(":")
    if not file or not line.isdigit():
        return None
    number = int(line)
    return SourceLocation(file, number, lines[number - 1] if 0 < number <= len(lines) else "")


def _read_source(fn) -> tuple[list[str], int]:
    path = inspect.getsourcefile(fn)
    if path is None or not Path(path).exists():
        return [], 0
    return Path(path).read_text().splitlines(), 0
