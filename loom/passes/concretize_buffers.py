"""Stage 3, pass `concretize-buffers`: virtual buffers become shared L1 storage and semaphores.

(a) Merge virtual buffers across exclusive handoffs. A handoff is an op that reads the last
    use of one buffer's value and writes another buffer of the same type: a destination copy
    (`linalg.copy` of an op's initial value, left by stage 2) or an elementwise `linalg.generic`
    reading an operand at the same index it writes. Merging renames the buffer holding a single
    value into the other one and turns the handoff into an in-place update
    (`acquire; release; reserve; op; commit`); a destination copy disappears. Each merge is
    proposed on a copy of the program and kept only if the protocol interpreter accepts it.
(b) Liveness from the protocol interpreter (the steps at which each buffer holds data), an
    interference graph per group of buffers with the same shape and element type, and a greedy
    colouring: buffers of one colour share one `loom.mem.alloc`. Buffers a DMA engine fills or
    drains keep their own storage: the per-core programs make each a circular buffer. Every buffer keeps its own
    `loom.sem.alloc` and is bound to both with `loom.vb.bind`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg.ops import CopyOp as LinalgCopyOp
from xdsl.dialects.linalg.ops import GenericOp, IteratorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from loom.ir.dialect import (
    CopyOp,
    MemAllocOp,
    SemAllocOp,
    VbAcquireOp,
    VbBindOp,
    VbCommitOp,
    VbCreateOp,
    VbReleaseOp,
    VbReserveOp,
)
from loom.ir.types import enclosing_in
from loom.passes.buffer_protocol import ProtocolViolation, interpret


@dataclass(frozen=True)
class ConcretizeBuffers(ModulePass):
    name = "concretize-buffers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for grid in [g for g in op.walk() if isinstance(g, affine.ParallelOp)]:
            grid = merge_exclusive_handoffs(grid)
            assign_storage(grid)
        op.verify()


# ------------------------------------------------------------------------------------- (a) merging


@dataclass(frozen=True)
class _Handoff:
    op_index: int  # position of the handoff op in the grid's walk order
    kind: str  # "copy" or "elementwise"


def _handoffs(grid: affine.ParallelOp) -> list[_Handoff]:
    found = []
    for index, op in enumerate(grid.walk()):
        if _handoff_buffers(op) is not None:
            found.append(_Handoff(index, "copy" if isinstance(op, LinalgCopyOp) else "elementwise"))
    return found


def _handoff_buffers(op: Operation, same_buffer: bool = False) -> tuple[VbAcquireOp, VbReserveOp] | None:
    """(acquire of the value read, reserve of the buffer written) if `op` is a handoff."""
    if isinstance(op, LinalgCopyOp):
        src, dst = op.inputs[0].owner, op.outputs[0].owner
    elif isinstance(op, GenericOp) and all(t.data == IteratorType.PARALLEL for t in op.iterator_types):
        dst = op.outputs[0].owner
        maps = [m.data for m in op.indexing_maps]
        src = next(
            (v.owner for v, m in zip(op.inputs, maps)
             if isinstance(v.owner, VbAcquireOp) and m == maps[-1] and v.type == op.outputs[0].type),
            None,
        )
    else:
        return None
    if not isinstance(src, VbAcquireOp) or not isinstance(dst, VbReserveOp):
        return None
    if (src.buffer is dst.buffer) != same_buffer or src.buffer.type != dst.buffer.type:
        return None
    return src, dst


def merge_exclusive_handoffs(grid: affine.ParallelOp) -> affine.ParallelOp:
    """Merge buffers across exclusive handoffs until none is left; returns the (new) grid op."""
    rejected: set[int] = set()
    while True:
        ops = list(grid.walk())
        for handoff in _handoffs(grid):
            if handoff.op_index in rejected:
                continue
            if not _may_merge(ops[handoff.op_index]):  # refused before a trial copy of the grid is made
                rejected.add(handoff.op_index)
                continue
            trial = grid.clone()
            if _merge(trial, handoff) and _protocol_holds(trial):
                grid.parent_block().insert_op_before(trial, grid)
                grid.detach()
                grid.erase()
                grid, rejected = trial, set()
                break
            trial.erase()
            rejected.add(handoff.op_index)
        else:
            return grid


def _may_merge(op: Operation) -> bool:
    """`_merge`'s own refusals, read off the grid as it is: neither buffer reserved only once, the merged
    buffer (every use of both) filled or drained by two engines, or the handoff not exclusive."""
    acquire, reserve = _handoff_buffers(op)
    source, dest = acquire.buffer, reserve.buffer
    if _reserve_count(source) != 1 and _reserve_count(dest) != 1:
        return False
    if any(len(_engines(source, side) | _engines(dest, side)) > 1 for side in (VbReserveOp, VbAcquireOp)):
        return False
    return _exclusive(op, acquire, reserve)


def _reserve_count(buffer: SSAValue) -> int:
    return sum(isinstance(use.operation, VbReserveOp) for use in buffer.uses)


def _merge(grid: affine.ParallelOp, handoff: _Handoff) -> bool:
    op = list(grid.walk())[handoff.op_index]
    acquire, reserve = _handoff_buffers(op)
    source, dest = acquire.buffer, reserve.buffer
    single_source, single_dest = _reserve_count(source) == 1, _reserve_count(dest) == 1
    if not (single_source or single_dest):
        return False
    prefer_source_kept = handoff.kind == "elementwise"
    keep, gone = (source, dest) if (single_dest and (prefer_source_kept or not single_source)) else (dest, source)
    gone_create = gone.owner
    gone.replace_all_uses_with(keep)
    gone_create.detach()
    gone_create.erase()
    if len(_engines(keep, VbReserveOp)) > 1 or len(_engines(keep, VbAcquireOp)) > 1:
        return False  # a buffer is filled by one engine (DMA or compute) and drained by one
    # the handoff, and any other copy the renaming made a self-copy, become in-place updates
    for candidate in list(grid.walk()):
        pair = _handoff_buffers(candidate, same_buffer=True)
        if pair is not None and pair[0].buffer is keep and not _make_in_place(candidate, *pair):
            return False
    return True


def _moved_by_dma(buffer: SSAValue) -> bool:
    """Filled or drained by a DMA engine: such a buffer keeps its own storage (the per-core
    programs make it a circular buffer between two engines, which cannot alias another)."""
    return "dma" in _engines(buffer, VbReserveOp) | _engines(buffer, VbAcquireOp)


def _engines(buffer: SSAValue, side: type) -> set[str]:
    """Which engines access `buffer` through its `side` views: "dma" (loom.copy) or "compute"."""
    engines = set()
    for use in buffer.uses:
        if isinstance(use.operation, side):
            for view_use in use.operation.view.uses:
                engines.add("dma" if isinstance(view_use.operation, CopyOp) else "compute")
    return engines


def _exclusive(op: Operation, acquire: VbAcquireOp, reserve: VbReserveOp) -> bool:
    """The handoff `op` is the last reader of the value it overwrites, in one block with both views (these
    facts do not change when its buffers are merged)."""
    block = op.parent_block()
    if acquire.parent_block() is not block or reserve.parent_block() is not block:
        return False  # the value is held across a loop: not an exclusive handoff
    ops = list(block.ops)
    # the value is still read after the handoff overwrote it?
    return not any(ops.index(enclosing_in(use.operation, block)) > ops.index(op) for use in acquire.view.uses)


def _make_in_place(op: Operation, acquire: VbAcquireOp, reserve: VbReserveOp) -> bool:
    """`acquire; reserve; op; commit; release` on one buffer → `acquire; release; reserve; op; commit`."""
    if not _exclusive(op, acquire, reserve):
        return False
    block = op.parent_block()
    release = _matching_release(acquire, block)
    if release is None:
        return False
    release.detach()
    block.insert_op_before(release, reserve)
    if isinstance(op, LinalgCopyOp):
        op.detach()
        op.erase()
    return True


def _matching_release(acquire: VbAcquireOp, block: Block) -> VbReleaseOp | None:
    ops = list(block.ops)
    for later in ops[ops.index(acquire) + 1:]:
        if isinstance(later, VbReleaseOp) and later.buffer is acquire.buffer:
            return later
    return None



def _protocol_holds(grid: affine.ParallelOp) -> bool:
    """A trial merge keeps every buffer's protocol: each reserve / acquire matched in its block (the only
    ops a merge touches; the whole module is verified once at the end, `ConcretizeBuffers.apply`) and an
    interpretation of the grid runs without a protocol violation."""
    try:
        for op in grid.walk():
            if isinstance(op, (VbReserveOp, VbCommitOp, VbAcquireOp, VbReleaseOp)):
                op.verify()
        interpret(grid)
    except (VerifyException, ProtocolViolation):
        return False
    return True


# ------------------------------------------------------------------------------- (b) storage


def assign_storage(grid: affine.ParallelOp) -> None:
    """Colour the interference graph of each shape group; bind every buffer to storage and a semaphore."""
    trace = interpret(grid)
    creates = [op for op in grid.body.block.ops if isinstance(op, VbCreateOp)]
    slot_of: dict[VbCreateOp, int] = {}
    groups: dict[tuple, list[VbCreateOp]] = {}
    for create in creates:
        key = (create.buffer.type, tuple(create.sizes))
        groups.setdefault(key, []).append(create)
    slots: list[VbCreateOp] = []  # the first buffer of each slot gives its shape
    for members in groups.values():
        colours: list[list[VbCreateOp]] = []
        for create in members:
            for colour in colours:
                if _moved_by_dma(create.buffer) or _moved_by_dma(colour[0].buffer):
                    continue
                if not any(trace.interferes(create.buffer, other.buffer) for other in colour):
                    colour.append(create)
                    break
            else:
                colours.append([create])
        for colour in colours:
            for create in colour:
                slot_of[create] = len(slots)
            slots.append(colour[0])
    first = creates[0] if creates else None
    block = grid.body.block
    memories = []
    for slot, create in enumerate(slots):
        mem = MemAllocOp(slot, list(create.sizes), create.buffer.type)
        block.insert_op_before(mem, first)
        memories.append(mem.memory)
    for create in creates:
        sem = SemAllocOp()
        bind = VbBindOp(create.label.data, memories[slot_of[create]], sem.semaphore)
        block.insert_ops_before([sem, bind], create)
        create.buffer.replace_all_uses_with(bind.buffer)
        create.detach()
        create.erase()
