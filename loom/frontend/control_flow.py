"""Stage 1, control flow: `if`/`else` folded on compile-time conditions, and device loops (`for tile_k in
hl.tile(k)`, and loops to an enclosing tile's end) as `scf.for` with their loop-carried tiles (a mixin of
`KernelLowering`)."""

from __future__ import annotations

import torch
import torch.fx
from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import scf
from xdsl.dialects.builtin import StringAttr, UnitAttr
from xdsl.ir import Block

from loom.errors import UnsupportedError
from loom.frontend.tiles import INDEX, Tile, target_name

NOT_TAKEN = object()  # the value a folded `if` gives the branch it did not take


class ControlFlowLowering:
    """`if`/`else` and device loops of `KernelLowering` (a mixin: it uses the lowering's builder state)."""

    def lower_if(self, node: torch.fx.Node, env: dict) -> list:
        """`if`/`else` on a condition known at compile time (a kernel argument, a constant): only the branch
        taken is lowered. Helion's `_if` yields the if branch's value of every variable the branches assign,
        then the else branch's; the values of the branch not taken are NOT_TAKEN, which the `_phi` drops."""
        test, if_id, else_id, if_args, else_args = node.args
        info = self.k.branches.get(if_id)
        taken = env.get(test, test) if isinstance(test, torch.fx.Node) else test
        if info is None or getattr(info, "predicate_is_tensor", False) or not isinstance(taken, (bool, int, float)):
            raise UnsupportedError(
                "a branch on a value known only when the kernel runs is not supported; expected `if` conditions "
                "on kernel arguments or constants (folded when compiling)", self.k.location(node))
        branch = 0 if taken else 1
        graph_id, args = (if_id, if_args) if branch == 0 else (else_id, else_args)
        outputs = []
        if graph_id is not None and graph_id in self.k.branches:
            graph = self.k.branches[graph_id].graph
            placeholders = [n for n in graph.nodes if n.op == "placeholder"]
            inner = {ph: env[a] if isinstance(a, torch.fx.Node) else a for ph, a in zip(placeholders, args)}
            outputs = self.lower_graph(graph, inner)
        outer = {**dict(zip(info.else_arg_names or [], else_args)), **dict(zip(info.if_arg_names or [], if_args))}
        values = []
        entries = info.branches_outputs or []
        for side in (0, 1):  # the if branch's values of every variable, then the else branch's
            for entry in entries:
                source = entry[side]
                if side != branch:
                    values.append(NOT_TAKEN)
                elif isinstance(source, int):
                    values.append(outputs[source])
                elif source in outer:
                    values.append(env[outer[source]] if isinstance(outer[source], torch.fx.Node) else outer[source])
                else:
                    raise UnsupportedError(f"the branch leaves `{source}` undefined on one side; expected every "
                                           "variable the branches assign to have a value on both",
                                           self.k.location(node))
        return values

    def lower_loop(self, node: torch.fx.Node, env: dict) -> list:
        graph_id, begins, ends, outer_args = node.args
        loop = self.k.loops[graph_id]
        if len(loop.block_ids) != 1:
            raise UnsupportedError("device loops over several dimensions at once are not supported yet",
                                   self.k.location(node))
        block = self.k.blocks[loop.block_ids[0]]
        from_enclosing = block.within is not None or block.from_begin  # starts at an enclosing tile's start
        if not from_enclosing and (begins != [0] or not (all(isinstance(e, int) for e in ends)
                                                         or block.bounded_by is not None)):
            raise UnsupportedError("device loops must start at 0 and end at a static extent or at an enclosing "
                                   "tile's end (`hl.tile(0, tile_m.end)`), or walk an enclosing tile "
                                   "(`hl.tile(tile_m.begin, tile_m.end)`)", self.k.location(node))
        # Loop-carried tiles: the phi nodes after the loop pair each output with its initial value.
        phis = {}
        for user in node.users:
            for phi in user.users:
                if target_name(phi) == "_phi":
                    phis[user.args[1]] = phi.args[0]
        outputs = _graph_outputs(loop.graph)
        inits = []
        for i in range(len(outputs)):
            if i not in phis:
                raise UnsupportedError("a loop result without an initial value is not supported",
                                       self.k.location(node))
            inits.append(self.materialize(env[phis[i]], node))
        count = self.within_trip_count(block, node) if block.within is not None else \
            self.trip_count(block, ends[0]) if block.bounded_by is None else self.bounded_trip_count(block, node)
        body = Block(arg_types=[INDEX] + [t.value.type for t in inits])
        body.args[0].name_hint = f"{block.label}_idx"
        for arg, init in zip(body.args[1:], inits):
            arg.name_hint = init.value.name_hint  # the loop-carried variable keeps its source name
        self.iv_value[block.block_id] = body.args[0]
        placeholders = [n for n in loop.graph.nodes if n.op == "placeholder"]
        inner_env = {}
        carried = {id(phis[i]): i for i in range(len(outputs))}
        for ph, outer in zip(placeholders, outer_args):
            if id(outer) in carried:
                i = carried[id(outer)]
                inner_env[ph] = Tile(body.args[1 + i], inits[i].dims)
            else:
                inner_env[ph] = env[outer]
        outer_builder, outer_consts = self.b, self.const_cache
        self.b, self.const_cache = Builder(InsertPoint.at_end(body)), dict(outer_consts)
        results = [self.materialize(r, node) for r in self.lower_graph(loop.graph, inner_env)]
        for r, init in zip(results, inits):
            if r.value.type != init.value.type:
                raise UnsupportedError(
                    f"a loop-carried tile changes type from {init.value.type} to {r.value.type}",
                    self.k.location(node),
                )
        self.b.insert(scf.YieldOp(*[r.value for r in results]))
        self.b, self.const_cache = outer_builder, outer_consts
        for_op = self.located(scf.ForOp(self.const(0), count, self.const(1), [t.value for t in inits], body), node)
        if block.bounded_by is not None:
            for_op.attributes["loom.until"] = StringAttr(self.k.blocks[block.bounded_by].label)
        if block.from_begin:
            for_op.attributes["loom.from_start"] = UnitAttr()
        if block.within is not None:
            for_op.attributes["loom.within"] = StringAttr(self.k.blocks[block.within].label)
        del self.iv_value[block.block_id]
        for res, init in zip(for_op.results, inits):
            res.name_hint = init.value.name_hint
        return [Tile(res, init.dims) for res, init in zip(for_op.results, inits)]


def _graph_outputs(graph: torch.fx.Graph) -> list:
    for node in graph.nodes:
        if node.op == "output":
            return list(node.args[0])
    return []
