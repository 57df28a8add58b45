"""Stage 1: a grid dimension that atomic adds sum over is one reduction loop (split-K as Helion users write it).

    for tile_m, tile_n, outer_k in hl.tile([m, n, k], block_size=[None, None, k_block]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for inner_k in hl.tile(outer_k.begin, outer_k.end):
            acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])
        hl.atomic_add(out, [tile_m, tile_n], acc)

adds into each [tile_m, tile_n] the products of every outer_k tile: the product over all of k. `k_block`
comes from a tunable (`hl.register_tunable("split_k", …)`), a choice Loom leaves to the solver: it compiles
the loop over all of k (`for inner_k in hl.tile(k)`) and splits k across cores where the model says so
(stage 4's split reductions). The Device IR is rewritten in place before the blocks are read: the walk's
bounds become 0 and the extent, the grid loses `outer_k`, and an `if` on `outer_k`'s position whose branches
leave every value as it is (`if outer_k.begin == 0: acc = epilogue(acc, …)` with the identity epilogue)
goes. The atomic adds themselves are lowered by `loom.frontend.atomics`.
"""

from __future__ import annotations

import torch
import torch.fx

from loom.frontend.tiles import target_name


def merge_summed_grid_dims(device_ir, block_sizes) -> dict[int, tuple[int, int]]:
    """Merge each grid block that only a nested loop walks, and that atomic adds sum over, into that loop:
    {the loop's block id: (the grid block's id, its extent)}. The Device IR's root graph and grid are
    rewritten (once: the result is kept on it)."""
    done = getattr(device_ir, "_loom_split_sums", None)
    if done is not None:  # Helion caches a bound kernel, and its Device IR, per argument signature
        return done
    merged, blockers = {}, {}
    root_info = next((g for g in device_ir.graphs if type(g).__name__ == "RootGraphInfo"), None)
    root = root_info.graph if root_info is not None else None
    adds = [n for n in root.nodes if target_name(n) == "atomic_add"] if root is not None else []
    tiles = {info.symbol(): info for info in block_sizes}
    for block_id in list(device_ir.grid_block_ids[0]) if adds else []:
        tile = _tile_node(root, tiles, block_id)
        if tile is None or any(tile in _flat(add.args[1]) for add in adds):
            continue
        walk, blocker = _walk(root, tile, device_ir)
        info = next(i for i in block_sizes if i.block_id == block_id)
        if walk is not None and blocker is None and _reads_position(device_ir.graphs[walk.args[0]].graph, info):
            blocker = f"its loop reads `{sorted(info.debug_names)[0] if info.debug_names else 'the tile'}` itself"
        blocker = blocker or (_summed(walk, adds, device_ir) if walk is not None else None)
        if blocker is None and walk is not None and not isinstance(info.size, int):
            blocker = "its extent is symbolic"
        if walk is None or blocker:
            if blocker:
                blockers[block_id] = blocker
            continue
        graph_id, _, _, outer_args = walk.args
        begin, end = walk.args[1][0], walk.args[2][0]
        walk.args = (graph_id, [0], [info.size], outer_args)
        _fold_branches_on(begin, root, device_ir)
        for node in (begin, end, tile):
            root.erase_node(node)
        device_ir.grid_block_ids[0].remove(block_id)
        merged[device_ir.graphs[graph_id].block_ids[0]] = (block_id, info.size)
    device_ir._loom_split_sums, device_ir._loom_split_blockers = merged, blockers
    return merged


def _tile_node(root: torch.fx.Graph, tiles: dict, block_id: int) -> torch.fx.Node | None:
    for node in root.nodes:
        val = node.meta.get("val")
        if target_name(node) == "_get_symnode" and isinstance(val, torch.SymInt) and \
                getattr(tiles.get(val.node.expr), "block_id", None) == block_id:
            return node
    return None


def _walk(root: torch.fx.Graph, tile: torch.fx.Node, device_ir) -> tuple[torch.fx.Node | None, str | None]:
    """The one `_for_loop` over [tile.begin, tile.end), if the tile's start and end serve only it and
    conditions of branches that change nothing; else None and, where the loop is there, what else uses them."""
    begins = [u for u in tile.users if target_name(u) == "tile_begin"]
    ends = [u for u in tile.users if target_name(u) == "tile_end"]
    if len(begins) != 1 or len(ends) != 1 or len(tile.users) != 2:
        return None, None
    loops = [u for u in ends[0].users if target_name(u) == "_for_loop"]
    if len(loops) != 1 or loops[0].args[1] != [begins[0]] or loops[0].args[2] != [ends[0]] or \
            len(ends[0].users) != 1:
        return None, None
    for user in begins[0].users:
        if user is loops[0]:
            continue
        if target_name(user) not in ("eq", "ne") or not all(_changes_nothing(b, device_ir) for b in user.users):
            return None, "a branch on its position changes values (an epilogue on the first split only?)"
    return loops[0], None


def _reads_position(body: torch.fx.Graph, info) -> bool:
    """The loop body refers to the grid tile itself (`y[outer_k.begin, tile_n]`): it differs between splits."""
    symbol = info.symbol()
    return any(isinstance(n.meta.get("val"), torch.SymInt) and n.meta["val"].node.expr == symbol for n in body.nodes)


def _summed(walk: torch.fx.Node, adds: list[torch.fx.Node], device_ir) -> str | None:
    """None where the walk only accumulates (each carried value plus a term that no carried value feeds),
    every value it carries starts at zero and ends in atomic adds only (through phis and branches that change
    nothing), and every atomic add adds one of them: the sum of the walks over the grid block is then one walk
    over its extent; else why not."""
    body = device_ir.graphs[walk.args[0]].graph
    if not _accumulates(body):
        return "its loop does more than add to the values it carries (`acc = acc + …`, `torch.addmm(acc, …)`)"
    reached: set = set()
    for result in walk.users:
        for phi in result.users:
            if target_name(phi) != "_phi" or not _zeros(phi.args[0]):
                return "a value the loop carries does not start at zero"
            if not all(_reaches_only_adds(u, adds, device_ir, reached) for u in phi.users):
                return "the loop's results are used other than by `hl.atomic_add`"
    if set(adds) - reached:
        return "an `hl.atomic_add` adds a value that is not the loop's sum, once per split"
    return None


_ACCUMULATE = {"aten.add.Tensor": (0, 1), "aten.addmm.default": (0,), "aten.baddbmm.default": (0,)}
"""An op that adds to its operand at each given position (an accumulator), the rest being the term."""


def _accumulates(body: torch.fx.Graph) -> bool:
    """Each output of a loop body is one of its carried values (a placeholder) plus a term computed without
    any of them (their shapes aside), and the body stores nothing."""
    carried = [n for n in body.nodes if n.op == "placeholder"]
    out = next(n for n in body.nodes if n.op == "output")
    if any(target_name(n) in ("store", "atomic_add", "_for_loop", "_if") for n in body.nodes):
        return False
    for value in list(out.args[0] or []):
        accumulator, terms = _split_accumulation(value, carried)
        if accumulator is None or any(_depends_on(t, carried) for t in terms):
            return False
    return True


def _split_accumulation(value: object, carried: list) -> tuple[object, list]:
    """(the carried value `value` adds to, the other operands), or (None, [])."""
    if not isinstance(value, torch.fx.Node):
        return None, []
    name = target_name(value)
    operands = list(value.args)
    if name == "dot":
        acc = value.args[2] if len(value.args) > 2 else value.kwargs.get("acc")
        return (acc, operands[:2]) if _unwrapped(acc) in carried else (None, [])
    for position in _ACCUMULATE.get(name, ()):
        if position < len(operands) and _unwrapped(operands[position]) in carried:
            return operands[position], operands[:position] + operands[position + 1:]
    return None, []


def _unwrapped(node: object) -> object:
    while isinstance(node, torch.fx.Node) and target_name(node) == "_new_var":
        node = node.args[0]
    return node


def _depends_on(node: object, carried: list) -> bool:
    """Whether a carried value's data reaches `node` (reading a carried value's size does not)."""
    if not isinstance(node, torch.fx.Node):
        return False
    if node in carried:
        return True
    if target_name(node) == "aten.sym_size.int":
        return False
    return any(_depends_on(a, carried) for a in node.all_input_nodes)


def split_blockers(device_ir) -> dict[int, str]:
    """Why each grid dimension that a nested loop walks, and the atomic adds sum over, was not folded."""
    return getattr(device_ir, "_loom_split_blockers", {})


def _reaches_only_adds(node: torch.fx.Node, adds: list[torch.fx.Node], device_ir, reached: set) -> bool:
    """Whether `node`'s value flows only into the value operand of atomic adds (collected in `reached`)."""
    if node in adds:
        reached.add(node)
        return not node.users and node.args[2] is not node.args[0]
    if target_name(node) in ("_phi", "getitem") or (target_name(node) == "_if" and _changes_nothing(node, device_ir)):
        return all(_reaches_only_adds(u, adds, device_ir, reached) for u in node.users)
    return False


def _zeros(node: object) -> bool:
    return isinstance(node, torch.fx.Node) and target_name(node) == "full" and node.args[1] == 0


def _changes_nothing(node: torch.fx.Node, device_ir) -> bool:
    """An `_if` whose branches leave every variable they assign as it was (`_branch_values` equal)."""
    return target_name(node) == "_if" and _branch_values(node, device_ir) is not None


def _branch_values(node: torch.fx.Node, device_ir) -> list | None:
    """The value of each output of an `_if` whose two branches give every variable the same value, else None.
    Helion's `_if` yields the if branch's value of every variable the branches assign, then the else
    branch's (`IfGraphInfo.branches_outputs`: an output index of the branch's graph, or an outer name)."""
    _, if_id, else_id, if_args, else_args = node.args
    info = device_ir.graphs[if_id]
    outer = {**dict(zip(info.else_arg_names or [], else_args)), **dict(zip(info.if_arg_names or [], if_args))}
    sides = []
    for graph_id, args in ((if_id, if_args), (else_id, else_args)):
        graph = device_ir.graphs[graph_id].graph if graph_id is not None else None
        sides.append(_passed_through(graph, args) if graph is not None else [])
    if any(side is None for side in sides):
        return None
    values = [[], []]
    for entry in info.branches_outputs or []:
        for side in (0, 1):
            source = entry[side]
            value = sides[side][source] if isinstance(source, int) and source < len(sides[side]) else \
                outer.get(source) if isinstance(source, str) else None
            if value is None:
                return None
            values[side].append(value)
    return values[0] + values[1] if values[0] == values[1] else None


def _passed_through(graph: torch.fx.Graph, args: list) -> list | None:
    """The outer values a branch's graph returns, if it only returns its arguments unchanged (`_new_var(arg)`):
    nothing but placeholders, `_new_var` and the output."""
    if any(n.op == "call_function" and target_name(n) != "_new_var" for n in graph.nodes):
        return None
    placeholders = {n: a for n, a in zip([n for n in graph.nodes if n.op == "placeholder"], args)}
    out = next(n for n in graph.nodes if n.op == "output")
    values = []
    for value in list(out.args[0] or []):
        while isinstance(value, torch.fx.Node) and target_name(value) == "_new_var":
            value = value.args[0]
        if value not in placeholders:
            return None
        values.append(placeholders[value])
    return values


def _fold_branches_on(begin: torch.fx.Node, root: torch.fx.Graph, device_ir) -> None:
    """Remove the conditions on the folded tile's start and the branches on them, which change nothing
    (`_walk` checked): each branch's outputs become the values it passes through."""
    for condition in [u for u in begin.users if target_name(u) in ("eq", "ne")]:
        for branch in list(condition.users):
            values = _branch_values(branch, device_ir)
            getitems = list(branch.users)
            phis = {p for user in getitems for p in user.users if target_name(p) == "_phi"}
            for user in getitems:
                user.replace_all_uses_with(values[user.args[1]])
                root.erase_node(user)
            for phi in phis:  # the values before and after the branch: one value now
                if phi.args[0] is phi.args[1]:
                    phi.replace_all_uses_with(phi.args[0])
                    root.erase_node(phi)
            root.erase_node(branch)
        root.erase_node(condition)


def _flat(entries) -> list:
    return [e for e in entries if isinstance(e, torch.fx.Node)]
