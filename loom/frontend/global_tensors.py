"""Stage 1, global tensors as the per-core programs lay them out: rank-1 tensors as a 1 x N row or an
N x 1 column, by how the kernel uses them; and the tensors the host code creates, which the kernel
may write, and read back only where each core reads the blocks it stored."""

from __future__ import annotations

import torch
import torch.fx

from loom.errors import UnsupportedError
from loom.frontend.batch_blocks import tile_symbol
from loom.frontend.helion import TracedKernel
from loom.frontend.partials import is_tile_id
from loom.frontend.tiles import IDENTITY, target_name


def vector_layouts(kernel: TracedKernel, tensors: dict[str, torch.Tensor], batch_symbols: set) -> dict[str, str]:
    """How each rank-1 tensor is laid out as a matrix: "col" (N x 1: one value per row, the layout of a
    row reduction's result, `out[tile_m] = x[tile_m, :].sum(-1)`) or "row" (1 x N, a vector broadcast
    down the rows, `w[None, :]`, or `acc + b[tile_n]` by torch's broadcasting): by how the kernel indexes
    and uses it, the same way at every access. A tensor whose leading dimensions are all indexed by batch
    blocks (`lse[tile_b, tile_m]`, see `batch_blocks`) is a batch of such vectors, laid out the same way in
    each slice; a rank-1 tensor indexed only by a batch block (`advantages[tile_b]`: one value per slice) is
    "scalar", a 1 x 1 matrix per value."""
    layouts: dict[str, str] = {}
    grid_symbols = {kernel.blocks[b].symbol for b in kernel.grid_block_ids}
    for graph in kernel.graphs():
        for node in graph.nodes:
            if target_name(node) not in ("load", "store") or target_name(node.args[0]) != "_host_tensor":
                continue
            name = node.args[0].args[0]
            index = list(node.args[1])
            if name not in tensors or not _a_vector(tensors[name], index, batch_symbols, grid_symbols):
                continue
            vector_index = index[tensors[name].dim() - 1:]
            if tensors[name].dim() == 1 and len(index) == 1 and tile_symbol(index[0]) in batch_symbols:
                layout = "scalar"  # one value per batch slice (`advantages[tile_b]`): a 1 x 1 matrix each
                if layouts.setdefault(name, layout) != layout:
                    raise UnsupportedError(f"the rank-1 tensor `{name}` is indexed both by a batch tile and by "
                                           "other tiles; expected one of them at every access", kernel.location(node))
                continue
            row = (vector_index and vector_index[0] is None) or _used_as_row(node) or _stores_a_row(node)
            layout = "row" if row else "col"
            if layouts.setdefault(name, layout) != layout:
                raise UnsupportedError(
                    f"the rank-1 tensor `{name}` is indexed both as a row (`{name}[None, …]`) and as a column "
                    f"(`{name}[…]`); expected one of them at every access", kernel.location(node))
    return layouts


def _a_vector(tensor: torch.Tensor, index: list, batch_symbols: set, grid_symbols: set) -> bool:
    """A rank-1 tensor, or one whose index starts with a batch block, or a grid loop's `tile.id` (per-tile
    partials, `loom.frontend.partials`), for every dimension but the last."""
    if tensor.dim() == 1:
        return True
    leading = index[:tensor.dim() - 1]
    return len(index) >= tensor.dim() and all(tile_symbol(e) in batch_symbols or is_tile_id(e, grid_symbols)
                                              for e in leading)


def _stores_a_row(store: torch.fx.Node) -> bool:
    """A store of a value computed elementwise from a row of a matrix (`out[tile_n] = x[0, tile_n] * 2`: the
    read is a 1 x n row, `access.row_read`), so the vector is laid out as a row too."""
    if target_name(store) != "store" or not isinstance(store.args[2], torch.fx.Node):
        return False
    stack, seen = [store.args[2]], set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if target_name(node) == "load":
            if one_row(list(node.args[1]), node.args[0].meta["val"].shape):
                return True
        elif target_name(node) in ("prims.convert_element_type.default", *IDENTITY) \
                or target_name(node).startswith("aten."):
            stack.extend(node.all_input_nodes)
    return False


def one_row(index: list, shape) -> bool:
    """An index with an integer on the second-to-last dimension of a matrix whose last dimension it keeps
    (`x[0, tile_n]`): one row, whose values lie along a row of their tiles."""
    return len(shape) >= 2 and len(index) == len(shape) and isinstance(index[-2], int) \
        and not isinstance(index[-1], int) and index[-1] is not None


def _used_as_row(load: torch.fx.Node) -> bool:
    """A vector load whose value is broadcast down rows: `w[tile_n][None, :]`, or by torch's implicit
    broadcasting, which aligns a rank-1 operand with the last dimension (`acc + bias[tile_n]`); followed
    through format conversions and elementwise ops of the vector's rank. `w[tile_m][:, None]` is a column.
    A batch of vectors (`lse[tile_b, tile_m]`, rank 2) counts ranks above its own."""
    base = _rank(load) or 1
    stack, seen = [load], set()
    while stack:
        node = stack.pop()
        for user in node.users:
            if user in seen:
                continue
            seen.add(user)
            name = target_name(user)
            if name == "subscript":
                entries = list(user.args[1])
                if len(entries) >= base and entries[base - 1] is None:
                    return True
                continue  # `[:, None]`: a column
            rank = _rank(user)
            if name in ("prims.convert_element_type.default", *IDENTITY) or (name.startswith("aten.") and rank == base):
                stack.append(user)
            elif name.startswith("aten.") and rank is not None and rank > base:
                return True
    return False


def _rank(node: torch.fx.Node) -> int | None:
    value = node.meta.get("val")
    return value.dim() if isinstance(value, torch.Tensor) else None


def laid_out(shape: list[int], layout: str | None) -> list[int]:
    """A tensor's shape as the per-core programs hold it: a vector (or a batch of them) gains a unit
    dimension, before its last (a row) or after it (a column)."""
    return {None: shape, "row": [*shape[:-1], 1, shape[-1]], "col": [*shape, 1], "scalar": [*shape, 1, 1]}[layout]


def host_accesses(kernel: TracedKernel) -> dict[str, dict[str, list[torch.fx.Node]]]:
    """Per global tensor the kernel loads or stores: its loads, stores and atomic adds (`hl.atomic_add`: a
    read and a write of the same block, `loom.frontend.atomics`), by kind, in program order."""
    accesses: dict[str, dict[str, list[torch.fx.Node]]] = {}
    for graph in kernel.graphs():
        for node in graph.nodes:
            kind = target_name(node)
            if kind in ("load", "store", "atomic_add") and target_name(node.args[0]) == "_host_tensor":
                accesses.setdefault(node.args[0].args[0], {}).setdefault(kind, []).append(node)
    return accesses


def _stored_before(load: torch.fx.Node, kinds: dict[str, list[torch.fx.Node]], order: dict) -> bool:
    """A store of the same tensor comes before `load` in program order (what it reads was written first)."""
    return any(order.get(store, len(order)) < order.get(load, -1) for store in kinds.get("store", []))


def _program_order(kernel: TracedKernel) -> dict[torch.fx.Node, int]:
    """Every device node's position in program order: the root's nodes, each loop's and branch's body where
    its `_for_loop` / `_if` node stands."""
    order: dict[torch.fx.Node, int] = {}

    def walk(graph: torch.fx.Graph) -> None:
        for node in graph.nodes:
            order[node] = len(order)
            name = target_name(node)
            if name == "_for_loop" and node.args[0] in kernel.loops:
                walk(kernel.loops[node.args[0]].graph)
            elif name == "_if":
                for branch in node.args[1:3]:
                    if branch in kernel.branches:
                        walk(kernel.branches[branch].graph)

    walk(kernel.root)
    return order


def written_arguments(kernel: TracedKernel) -> list[str]:
    """The arguments the kernel stores into: outputs the caller allocated (`def add(x, y, out)`). One the
    kernel also loads would be an in-place update, which is refused: a core's loads are not ordered after
    its stores."""
    accesses = {name: kinds for name, kinds in host_accesses(kernel).items() if name in kernel.host_tensors}
    for name, kinds in accesses.items():
        if "load" in kinds and "store" in kinds:
            raise UnsupportedError(
                f"the kernel loads and stores its argument `{name}` (an in-place update); Loom does not order a "
                f"core's stores before its later loads yet: expected the result in another tensor "
                f"(`out = torch.empty_like({name})`)", kernel.location(kinds["store"][0]))
    return [name for name, kinds in accesses.items() if "store" in kinds or "atomic_add" in kinds]


def check_read_back(kernel: TracedKernel, created: list[str], zeroed: set[str] = frozenset()) -> None:
    """Loads of the tensors the host code created (`c = torch.empty(…)`), which hold what the kernel stored.
    Allowed where every load and store of one indexes it by the core's own grid tiles, each at the same
    position (`c[tile_m, tile_k]` stored and loaded under `for tile_m in hl.tile(m)`): a core then reads back
    only blocks it wrote itself, and its per-core program waits for its own stores to land before those
    loads (`loom.backend.split`). Any other load of such a tensor is refused: Loom does not order one
    core's stores before another core's loads. A load before any store reads the tensor as the host made
    it, which the per-core programs take to be zeros: allowed for the tensors in `zeroed` only."""
    grid = {kernel.blocks[b].symbol for b in kernel.grid_block_ids}
    order = _program_order(kernel)
    for name, kinds in host_accesses(kernel).items():
        loads = kinds.get("load", [])
        if name not in created or not loads:
            continue
        first = next((load for load in loads if name not in zeroed and not _stored_before(load, kinds, order)), None)
        if first is not None:
            raise UnsupportedError(
                f"`{name}` is read before the kernel writes it, and the host code creates it other than filled "
                f"with zeros: Loom's per-core programs start the tensors the host code creates at zero; expected "
                f"`{name} = torch.zeros(…)` (or `zeros_like`, `new_zeros`), or the tensor passed in as an argument",
                kernel.location(first))
        placements = {tuple(s if s in grid else None for s in map(tile_symbol, node.args[1]))
                      for node in loads + kinds.get("store", [])}
        if len(placements) != 1 or not grid <= set(next(iter(placements))):
            raise UnsupportedError(
                f"`{name}` is created by the host code and read back inside the kernel at other blocks than "
                f"the core's own grid tiles; Loom orders a core's stores to `{name}` before its own later loads "
                f"only: expected `{name}` indexed by every tile of the launch grid, the same way at each load "
                "and store, or the kernel split in two", kernel.location(loads[0]))
