"""`hl.split` / `hl.join` of a last dimension of 2 made by a reshape and a permute: the two column
halves of a tile, read and written as such.

Helion's idiom for the two halves of a last dimension (rope's rotate-half):

    pair = x[tile_b, tile_t, :].to(torch.float32).reshape([tile_b, tile_t, 2, half]).permute(0, 1, 3, 2)
    first, second = hl.split(pair)
    ...
    out[tile_b, tile_t, :] = hl.join(a, b).permute(0, 1, 3, 2).reshape([tile_b, tile_t, 2 * half]).to(dtype)

Tensix moves and computes 32 x 32 tiles; a reshape that puts a dimension of 2 last has no per-core
form. But `first` is `x[..., :half]` and `second` is `x[..., half:]`, and the joined store writes `a` to
`out[..., :half]` and `b` to `out[..., half:]`: column blocks that Loom reads and writes directly (a
half that is not a whole number of tiles is refused where it is read). `column_halves` rewrites the FX
graphs before lowering: each half becomes its own load (the elementwise conversions between the load
and the reshape applied to it), and a joined store two stores. Any other reshape stays, and is refused
at its line.
"""

from __future__ import annotations

import torch
import torch.fx

from loom.frontend.helion import TracedKernel
from loom.frontend.tiles import target_name

_CONVERSIONS = {"prims.convert_element_type.default", "aten._to_copy.default"}
_PASS_THROUGH = {"aten.clone.default"}


def column_halves(kernel: TracedKernel) -> None:
    """Rewrite, in every device graph of `kernel`, each split of a (reshape, permute) pair into its two
    column-half loads and each store of a joined pair into its two column-half stores."""
    for graph in kernel.graphs():
        for node in list(graph.nodes):
            if target_name(node) == "split":
                _split(graph, node)
            elif target_name(node) == "store":
                _joined_store(graph, node)


def _name(node: object) -> str:
    """The FX target name of `node`; "" for anything that is not a node (a list, a number)."""
    return target_name(node) if isinstance(node, torch.fx.Node) else ""


def _erase_unused(graph: torch.fx.Graph, node: object) -> None:
    """Erase `node` if nothing uses it any more, then the nodes it read, in turn (not the tensors)."""
    if isinstance(node, torch.fx.Node) and not node.users and target_name(node) != "_host_tensor":
        inputs = list(node.all_input_nodes)
        graph.erase_node(node)
        for source in inputs:
            _erase_unused(graph, source)


def _swaps_last_two(permute: object) -> bool:
    """`permute` is a permute node exchanging its input's last two dimensions only."""
    if _name(permute) != "aten.permute.default":
        return False
    dims = list(permute.args[1])
    return dims == [*range(len(dims) - 2), len(dims) - 1, len(dims) - 2]


def _reshape(node: object) -> bool:
    return _name(node) in ("aten.view.default", "aten.reshape.default")


def _half_width(permute: torch.fx.Node, reshape: torch.fx.Node, whole: torch.fx.Node) -> int | None:
    """`half` where `permute(reshape(whole, [..., 2, half]))` swaps the last two dimensions of a pair
    made of `whole`'s last one (of 2 * half elements); else None."""
    if not _swaps_last_two(permute) or not _reshape(reshape):
        return None
    shape, val, pairs = list(reshape.args[1]), whole.meta.get("val"), reshape.meta.get("val")
    if not isinstance(val, torch.Tensor) or not isinstance(pairs, torch.Tensor) or len(shape) != val.dim() + 1:
        return None
    if [str(d) for d in pairs.shape[:-2]] != [str(d) for d in val.shape[:-1]]:
        return None  # the leading dimensions re-chunked: not a pair of the last one
    half, width = shape[-1], val.shape[-1]
    return half if shape[-2] == 2 and isinstance(half, int) and width == 2 * half else None


def _split(graph: torch.fx.Graph, split: torch.fx.Node) -> None:
    permute = split.args[0]
    reshape = permute.args[0] if isinstance(permute, torch.fx.Node) and permute.args else None
    if not isinstance(reshape, torch.fx.Node):
        return
    whole = reshape.args[0]
    half = _half_width(permute, reshape, whole)
    users = list(split.users)
    if half is None or not all(target_name(u) == "getitem" and u.args[1] in (0, 1) for u in users):
        return
    for item in users:
        with graph.inserting_before(item):
            part = _sliced(graph, whole, item.args[1] * half, half)
        if part is None:
            return  # left for the lowering to refuse at the reshape
        item.replace_all_uses_with(part)
        graph.erase_node(item)
    _erase_unused(graph, split)


def _sliced(graph: torch.fx.Graph, node: torch.fx.Node, start: int, width: int) -> torch.fx.Node | None:
    """A new node computing `node[..., start:start + width]`: the load it comes from, sliced, through the
    conversions between them; None where `node` is anything else."""
    name = _name(node)
    if name in _CONVERSIONS:
        inner = _sliced(graph, node.args[0], start, width)
        return None if inner is None else _copy(graph, node, (inner, *node.args[1:]),
                                                node.meta["val"].narrow(-1, start, width))
    if name != "load" or not isinstance(node.args[1], (list, tuple)) or node.args[1][-1] != slice(None):
        return None
    index = [*node.args[1][:-1], slice(start, start + width)]
    return _copy(graph, node, (node.args[0], index, *node.args[2:]), node.meta["val"].narrow(-1, start, width))


def _copy(graph: torch.fx.Graph, node: torch.fx.Node, args: tuple, val: object = None) -> torch.fx.Node:
    """A new node like `node` (its target, keyword arguments and source line) on `args`, of value `val`."""
    new = graph.call_function(node.target, args, dict(node.kwargs))
    new.meta.update(node.meta)
    if val is not None:
        new.meta["val"] = val
    return new


def _joined_store(graph: torch.fx.Graph, store: torch.fx.Node) -> None:
    """`out[..., :] = convert(reshape(permute(join(a, b))))` as `out[..., :half] = convert(a)` and
    `out[..., half:] = convert(b)`."""
    index, value = store.args[1], store.args[2]
    if not isinstance(index, (list, tuple)) or index[-1] != slice(None) or not isinstance(value, torch.fx.Node):
        return
    conversions = []
    while _name(value) in _CONVERSIONS:
        conversions.append(value)
        value = value.args[0]
    reshape, permute = value, value.args[0] if isinstance(value, torch.fx.Node) and value.args else None
    while _name(permute) in _PASS_THROUGH:
        permute = permute.args[0]
    if not _name(permute) or not permute.args or _name(permute.args[0]) != "join":
        return
    join, val = permute.args[0], reshape.meta.get("val")
    halves = [part.meta.get("val") for part in join.args[:2] if isinstance(part, torch.fx.Node)]
    if not (_swaps_last_two(permute) and _reshape(reshape) and isinstance(val, torch.Tensor) and len(halves) == 2
            and all(isinstance(h, torch.Tensor) and h.dim() == val.dim() and 2 * h.shape[-1] == val.shape[-1]
                    for h in halves)):
        return
    half = val.shape[-1] // 2
    for k, part in enumerate(join.args[:2]):
        with graph.inserting_before(store):
            for conversion in reversed(conversions):
                part = _copy(graph, conversion, (part, *conversion.args[1:]),
                             part.meta["val"].to(conversion.meta["val"].dtype))
            _copy(graph, store, (store.args[0], [*index[:-1], slice(k * half, (k + 1) * half)], part, *store.args[3:]))
    graph.erase_node(store)
    _erase_unused(graph, conversions[0] if conversions else reshape)
