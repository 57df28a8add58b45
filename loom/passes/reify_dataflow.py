"""Stage 2, pass `reify-dataflow`: tensor SSA values become virtual buffers with a readiness protocol.

For every tile value the pass creates a virtual buffer (`loom.vb.create`, in local memory "L1")
and rewrites producers and consumers onto it:

- a producer writes between `loom.vb.reserve` and `loom.vb.commit`;
- the consumers of one committed value read between one `loom.vb.acquire`, placed before the
  first consumer, and one `loom.vb.release`, placed after the last (a consumer nested in a loop
  keeps the value acquired across the whole loop: the read is hoisted);
- `loom.read` becomes `loom.copy` DRAM→L1 into the reserved view, `loom.write` becomes
  `loom.copy` L1→DRAM from the acquired view;
- linalg ops run on the views (memref semantics). An op whose destination is an earlier value
  first copies it into its own buffer (`linalg.copy`); stage 3 removes that copy where the
  handoff is exclusive.
- Loop-carried values keep their in-place reuse: the initial value, the loop-carried argument,
  the yielded value and the loop result share one buffer. An update of that buffer is
  `acquire; release; reserve; op; commit`. A yielded value produced while the previous value is
  still needed gets its own buffer and is copied back at the end of the iteration.
- A loop result that is written to DRAM gets its own handoff (the proxy copy), so the store
  does not hold the loop's buffer.
Shapes stay symbolic: dynamic buffer sizes are the `loom.sym` values.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder, InsertPoint
from xdsl.context import Context
from xdsl.dialects import affine, func, memref, scf, tensor
from xdsl.dialects.builtin import ArrayAttr, MemRefType, ModuleOp, StringAttr, TensorType
from xdsl.dialects.linalg.ops import CopyOp as LinalgCopyOp
from xdsl.dialects.linalg.ops import FillOp, GenericOp, IteratorType, MatmulOp, TransposeOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from loom.errors import UnsupportedError
from loom.ir.dialect import (
    CopyOp,
    ReadOp,
    VbAcquireOp,
    VbCommitOp,
    VbCreateOp,
    VbReleaseOp,
    VbReserveOp,
    WriteOp,
)
from loom.ir.types import enclosing_in

L1 = StringAttr("L1")
_LINALG = (FillOp, GenericOp, MatmulOp, TransposeOp, LinalgCopyOp)


def buffer_type(tensor_type: TensorType) -> MemRefType:
    return MemRefType(tensor_type.element_type, tensor_type.get_shape(), memory_space=L1)


@dataclass(frozen=True)
class ReifyDataflow(ModulePass):
    name = "reify-dataflow"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.walk():
            if isinstance(fn, func.FuncOp):
                for grid in [o for o in fn.walk() if isinstance(o, affine.ParallelOp)]:
                    _Reifier(grid).run()
        op.verify()


class _Reifier:
    """Rebuilds one grid body in buffer form."""

    def __init__(self, grid: affine.ParallelOp):
        self.grid = grid
        self.vb: dict[SSAValue, SSAValue] = {}  # tile value -> its buffer
        self.view: dict[SSAValue, SSAValue] = {}  # tile value -> acquired read view
        self.dims: dict[SSAValue, list[SSAValue]] = {}  # tile value -> dynamic sizes
        self.mapper: dict[SSAValue, SSAValue] = {}  # old scalar/index value -> new
        self.released: set[SSAValue] = set()
        self.creates: list[Operation] = []
        self.labels: dict[str, int] = {}
        self.yield_copies: dict[scf.ForOp, list[tuple[SSAValue, SSAValue]]] = {}

    # ---------------------------------------------------------------- driver
    def run(self) -> None:
        old_body = self.grid.body.block
        new_body = Block(arg_types=[a.type for a in old_body.args])
        for old, new in zip(old_body.args, new_body.args):
            new.name_hint = old.name_hint
            self.mapper[old] = new
        self.plan_loops(old_body)
        self.emit_block(old_body, Builder(InsertPoint.at_end(new_body)))
        for op in reversed(self.creates):
            new_body.insert_op_before(op, new_body.first_op) if new_body.first_op else new_body.add_op(op)
        self.grid.body.detach_block(old_body)
        self.grid.body.add_block(new_body)
        old_body.erase(safe_erase=False)

    def new_buffer(self, value: SSAValue, label: str | None = None) -> SSAValue:
        label = label or (value.name_hint or "t")
        count = self.labels.get(label, 0)
        self.labels[label] = count + 1
        unique = label if count == 0 else f"{label}_{count}"
        sizes = [self.mapper.get(d, d) for d in self.dims[value]]
        op = VbCreateOp(unique, sizes, buffer_type(value.type))
        self.creates.append(op)
        return op.buffer

    # -------------------------------------------------------------- analysis
    def record_dims(self, op: Operation) -> None:
        """Dynamic sizes of the tile values `op` defines."""
        if isinstance(op, tensor.EmptyOp):
            self.dims[op.tensor] = list(op.dynamic_sizes)
        elif isinstance(op, ReadOp):
            view = op.source.owner
            assert isinstance(view, memref.SubviewOp)
            self.dims[op.result] = list(view.sizes)
        elif isinstance(op, _LINALG) and op.results:
            self.dims[op.results[0]] = self.dims[op.outputs[0]]
        elif isinstance(op, scf.ForOp):
            for init, arg, res in zip(op.iter_args, op.body.block.args[1:], op.results):
                self.dims[arg] = self.dims[res] = self.dims[init]

    def plan_loops(self, block: Block) -> None:
        """Decide which loop-carried values share the loop's buffer (see module docstring)."""
        self.direct_yield: dict[SSAValue, SSAValue] = getattr(self, "direct_yield", {})
        self.direct_init: set[SSAValue] = getattr(self, "direct_init", set())
        for op in block.ops:
            self.record_dims(op)
            if not isinstance(op, scf.ForOp):
                continue
            body = op.body.block
            self.plan_loops(body)
            order = {o: i for i, o in enumerate(body.ops)}
            yield_op = body.last_op
            copies = []
            carried = []
            for init, arg, res, yielded in zip(op.iter_args, body.args[1:], op.results, yield_op.operands):
                buf = self.new_buffer(arg, arg.name_hint)
                carried.append(StringAttr(buf.owner.label.data))
                self.vb[arg] = self.vb[res] = buf
                if init.owner.parent_block() is block and _use_count(init) == 1 and isinstance(init.owner, _LINALG):
                    self.direct_init.add(init)
                    self.vb[init] = buf
                last_use = max((order[enclosing_in(u.operation, body)] for u in arg.uses
                                if u.operation is not yield_op), default=-1)
                producer = yielded.owner if isinstance(yielded.owner, Operation) else None
                if yielded is arg:
                    continue
                if (producer is not None and producer.parent_block() is body and order[producer] >= last_use
                        and isinstance(producer, _LINALG) and yielded not in self.vb
                        and _may_update_in_place(producer, arg)):
                    self.vb[yielded] = buf
                    self.direct_yield[yielded] = arg
                else:
                    copies.append((yielded, arg))
            self.yield_copies[op] = copies
            op.attributes["loom.carried"] = ArrayAttr(carried)  # the buffers that hold the loop's state

    # -------------------------------------------------------------- emission
    def emit_block(self, block: Block, b: Builder) -> None:
        first, last = _anchors(block, self.direct_yield, self.direct_init)
        for op in block.ops:
            for value in first.get(op, []):
                self.acquire(value, b)
            self.emit_op(op, b, last.get(op, []))
            if not isinstance(op, (scf.YieldOp, affine.YieldOp)):
                for value in last.get(op, []):
                    self.release(value, b)
                for value in _dead_tiles(op, self.direct_yield):
                    self.acquire(value, b)
                    self.release(value, b)

    def buffer_of(self, value: SSAValue) -> SSAValue:
        if value not in self.vb:
            self.vb[value] = self.new_buffer(value)
        return self.vb[value]

    def acquire(self, value: SSAValue, b: Builder) -> None:
        self.view[value] = b.insert(VbAcquireOp(self.buffer_of(value))).view
        self.released.discard(value)

    def release(self, value: SSAValue, b: Builder) -> None:
        if value not in self.released:
            b.insert(VbReleaseOp(self.vb[value]))
            self.released.add(value)

    def produce(self, value: SSAValue, b: Builder, write) -> None:
        """reserve; write(view); commit — the producer side of the protocol."""
        buf = self.buffer_of(value)
        view = b.insert(VbReserveOp(buf)).view
        write(view)
        b.insert(VbCommitOp(buf))

    def emit_op(self, op: Operation, b: Builder, last_here: list[SSAValue]) -> None:
        if isinstance(op, tensor.EmptyOp):
            return
        if isinstance(op, ReadOp):
            source = self.mapper.get(op.source, op.source)
            self.produce(op.result, b, lambda view: b.insert(_located(CopyOp(source, view, "DRAM", "L1"), op)))
            return
        if isinstance(op, WriteOp):
            self.emit_write(op, b)
            return
        if isinstance(op, _LINALG):
            self.emit_linalg(op, b, last_here)
            return
        if isinstance(op, scf.ForOp):
            self.emit_loop(op, b)
            return
        if isinstance(op, scf.YieldOp):
            self.emit_yield(op, b, last_here)
            return
        if any(isinstance(r.type, TensorType) for r in op.results) or any(
                isinstance(o.type, TensorType) for o in op.operands):
            raise UnsupportedError(f"reify-dataflow: {op.name} on tiles is not supported")
        b.insert(op.clone(self.mapper))

    def emit_write(self, op: WriteOp, b: Builder) -> None:
        value, dest = op.value, self.mapper.get(op.dest, op.dest)
        if self.vb.get(value) in self.loop_buffers():
            # proxy copy: the store gets its own handoff instead of holding the loop's buffer
            proxy_label = f"{value.name_hint or 't'}_out"
            proxy = self.new_buffer(value, proxy_label)
            view = b.insert(VbReserveOp(proxy)).view
            b.insert(LinalgCopyOp([self.view[value]], [view], res=[]))
            b.insert(VbCommitOp(proxy))
            read = b.insert(VbAcquireOp(proxy)).view
            b.insert(_located(CopyOp(read, dest, "L1", "DRAM"), op))
            b.insert(VbReleaseOp(proxy))
            return
        b.insert(_located(CopyOp(self.view[value], dest, "L1", "DRAM"), op))

    def loop_buffers(self) -> set[SSAValue]:
        return {self.vb[arg] for loop in self.yield_copies for arg in loop.body.block.args[1:]}

    def emit_linalg(self, op: Operation, b: Builder, last_here: list[SSAValue]) -> None:
        result = op.results[0]
        init = op.outputs[0]
        reads_init = not isinstance(init.owner, tensor.EmptyOp) and not isinstance(op, (FillOp, TransposeOp))
        buf = self.buffer_of(result)
        if reads_init and self.vb.get(init) is buf:
            # in-place update of a loop-carried buffer: the old value is consumed, the slot rewritten
            self.release(init, b)
        for value in op.inputs:
            if value is not init and self.vb.get(value) is buf:
                # `row = row + s`: an elementwise update reading the carried value at its last use, at the
                # index it writes (plan_loops checked): the same in-place update
                self.release(value, b)
        view = b.insert(VbReserveOp(buf)).view
        if reads_init and self.vb.get(init) is not buf:
            b.insert(LinalgCopyOp([self.view[init]], [view], res=[]))
        inputs = [self.view[v] if isinstance(v.type, TensorType) else self.mapper.get(v, v) for v in op.inputs]
        b.insert(_located(_on_buffers(op, inputs, view, self.mapper), op))
        b.insert(VbCommitOp(buf))

    def emit_loop(self, op: scf.ForOp, b: Builder) -> None:
        for init, arg in zip(op.iter_args, op.body.block.args[1:]):
            if init not in self.direct_init:  # the initial value is copied into the loop's buffer
                buf = self.vb[arg]
                view = b.insert(VbReserveOp(buf)).view
                b.insert(LinalgCopyOp([self.view[init]], [view], res=[]))
                b.insert(VbCommitOp(buf))
                if _last_user_is(init, op):
                    self.release(init, b)  # copied: no need to hold it during the loop
        old_body = op.body.block
        new_body = Block(arg_types=[old_body.args[0].type])
        new_body.args[0].name_hint = old_body.args[0].name_hint
        self.mapper[old_body.args[0]] = new_body.args[0]
        self.emit_block(old_body, Builder(InsertPoint.at_end(new_body)))
        new_loop = scf.ForOp(*(self.mapper.get(v, v) for v in (op.lb, op.ub, op.step)), [], new_body)
        new_loop.attributes.update(op.attributes)
        b.insert(new_loop)

    def emit_yield(self, op: scf.YieldOp, b: Builder, last_here: list[SSAValue]) -> None:
        loop = op.parent_op()
        for yielded, arg in self.yield_copies.get(loop, []):
            buf = self.vb[arg]
            self.release(arg, b)
            view = b.insert(VbReserveOp(buf)).view
            b.insert(LinalgCopyOp([self.view[yielded]], [view], res=[]))
            b.insert(VbCommitOp(buf))
        for value in last_here:
            self.release(value, b)
        b.insert(scf.YieldOp())



def _may_update_in_place(producer: Operation, arg: SSAValue) -> bool:
    """Whether `producer` may write the loop-carried buffer of `arg` while reading `arg`: as its
    destination (`acc` of a matmul), or as an elementwise input read at the index it writes."""
    inputs = list(producer.inputs)
    if arg not in inputs:
        return True
    if not isinstance(producer, GenericOp):
        return False
    maps = [m.data for m in producer.indexing_maps]
    parallel = all(t.data == IteratorType.PARALLEL for t in producer.iterator_types)
    return parallel and all(maps[i] == maps[-1] for i, v in enumerate(inputs) if v is arg)


def _tile_values(block: Block):
    for arg in block.args:
        if isinstance(arg.type, TensorType):
            yield arg
    for op in block.ops:
        for res in op.results:
            if isinstance(res.type, TensorType) and not isinstance(op, tensor.EmptyOp):
                yield res


def _anchors(block: Block, direct_yield: dict, direct_init: set) -> tuple[dict, dict]:
    """For each tile value of `block`: the ops before which it is acquired and after which it is released."""
    order = {op: i for i, op in enumerate(block.ops)}
    first: dict[Operation, list[SSAValue]] = {}
    last: dict[Operation, list[SSAValue]] = {}
    for value in _tile_values(block):
        anchors = []
        for use in value.uses:
            if isinstance(use.operation, scf.YieldOp) and use.operation.parent_block() is block:
                if direct_yield.get(value) is not None or _yields_itself(value, use):
                    continue  # the yielded value already sits in the loop's buffer
            if isinstance(use.operation, scf.ForOp) and value in direct_init:
                continue  # the initial value already sits in the loop's buffer
            anchors.append(enclosing_in(use.operation, block))
        if not anchors:
            continue
        anchors.sort(key=order.__getitem__)
        first.setdefault(anchors[0], []).append(value)
        last.setdefault(anchors[-1], []).append(value)
    return first, last


def _yields_itself(value: SSAValue, use) -> bool:
    """A loop-carried argument yielded unchanged at its own position."""
    block = use.operation.parent_block()
    return value in block.args and block.args.index(value) == use.index + 1


def _dead_tiles(op: Operation, direct_yield: dict) -> list[SSAValue]:
    """Tile values `op` defines that nobody reads: they are drained so the protocol stays balanced."""
    dead = []
    for res in op.results:
        if isinstance(res.type, TensorType) and not isinstance(op, tensor.EmptyOp) and _use_count(res) == 0:
            dead.append(res)
    return dead


def _last_user_is(value: SSAValue, loop: scf.ForOp) -> bool:
    block = loop.parent_block()
    return all(enclosing_in(u.operation, block) is loop for u in value.uses)


def _use_count(value: SSAValue) -> int:
    return sum(1 for _ in value.uses)


def _located(new: Operation, old: Operation) -> Operation:
    if "loom.loc" in old.attributes:
        new.attributes["loom.loc"] = old.attributes["loom.loc"]
    return new


def _on_buffers(op: Operation, inputs: list[SSAValue], output: SSAValue, mapper: dict) -> Operation:
    """The same linalg op with buffer operands and no tensor result."""
    if isinstance(op, MatmulOp):
        return MatmulOp(inputs, [output], res=[])
    if isinstance(op, FillOp):
        return FillOp(inputs, [output], res=[])
    if isinstance(op, LinalgCopyOp):
        return LinalgCopyOp(inputs, [output], res=[])
    if isinstance(op, TransposeOp):
        return TransposeOp(inputs[0], output, op.permutation)
    assert isinstance(op, GenericOp)
    # the body may use values captured from the enclosing block (constants): clone it with the mapping
    scratch = op.clone(dict(mapper))
    body = scratch.detach_region(scratch.body)
    scratch.erase(safe_erase=False)
    return GenericOp(inputs, [output], body, op.indexing_maps, op.iterator_types, [])
