"""An interpreter of the virtual-buffer protocol: does a program's buffer use make sense?

It walks one core's program (the grid body) in order, runs every loop a few iterations (the
protocol of a loop body does not depend on its trip count once it has run twice) or, given
concrete block sizes, exactly as many iterations as the loop has, and keeps,
per virtual buffer, a one-slot circular-buffer state. It reports the first violation:

- `reserve` on a buffer whose slot still holds data (nobody released it: a deadlock);
- `commit` without `reserve`, `acquire` with nothing committed, `release` without `acquire`;
- two buffers that share storage (`loom.mem.alloc`) holding data at the same time.

It also returns, per buffer, the program steps at which it holds data; stage 3 uses that as
the liveness from which buffers that may share storage are found.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import affine, arith, scf
from xdsl.ir import Block, Operation, SSAValue

from loom.ir.dialect import SymOp, VbAcquireOp, VbBindOp, VbCommitOp, VbReleaseOp, VbReserveOp

LOOP_ITERATIONS = 3


class ProtocolViolation(Exception):
    """The buffer protocol is broken; the message names the buffer and the step."""


@dataclass
class _State:
    reserved: bool = False
    committed: int = 0
    acquired: bool = False

    def holds_data(self) -> bool:
        return self.reserved or self.committed > 0 or self.acquired


@dataclass
class ProtocolTrace:
    """Per buffer: the steps at which it holds data (reserved, committed or acquired)."""

    live_steps: dict[SSAValue, set[int]] = field(default_factory=dict)
    steps: int = 0

    def interferes(self, a: SSAValue, b: SSAValue) -> bool:
        return bool(self.live_steps.get(a, set()) & self.live_steps.get(b, set()))


def buffer_label(buffer: SSAValue) -> str:
    owner = buffer.owner
    label = getattr(owner, "label", None)
    return label.data if label is not None else (buffer.name_hint or "?")


def interpret(grid: affine.ParallelOp, sizes: dict[str, int] | None = None) -> ProtocolTrace:
    """Run the protocol of one grid body; raise ProtocolViolation on the first broken rule.

    With `sizes` (a value per `loom.sym` label) loops run their real trip counts; without,
    each loop runs LOOP_ITERATIONS times.
    """
    run = _Run(sizes)
    run.block(grid.body.block)
    for buffer, state in run.state.items():
        if state.reserved or state.acquired:
            raise ProtocolViolation(
                f"buffer '{buffer_label(buffer)}' is still {'reserved' if state.reserved else 'acquired'} "
                "at the end of the program"
            )
    return run.trace


class _Run:
    def __init__(self, sizes: dict[str, int] | None):
        self.sizes = sizes
        self.state: dict[SSAValue, _State] = {}
        self.trace = ProtocolTrace()

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    def op(self, op: Operation) -> None:
        if isinstance(op, scf.ForOp):
            trips = (LOOP_ITERATIONS if self.sizes is None
                     else _evaluate(op.ub, self.sizes) - _evaluate(op.lb, self.sizes))
            for _ in range(trips):
                self.block(op.body.block)
            return
        if not isinstance(op, (VbReserveOp, VbCommitOp, VbAcquireOp, VbReleaseOp)):
            return
        buffer = op.operands[0]
        state = self.state.setdefault(buffer, _State())
        name = buffer_label(buffer)
        if isinstance(op, VbReserveOp):
            if state.holds_data():
                raise ProtocolViolation(
                    f"reserve of '{name}' while its slot still holds data that was never released (deadlock)"
                )
            self.check_shared_storage(buffer)
            state.reserved = True
        elif isinstance(op, VbCommitOp):
            if not state.reserved:
                raise ProtocolViolation(f"commit of '{name}' without a reserve")
            state.reserved, state.committed = False, state.committed + 1
        elif isinstance(op, VbAcquireOp):
            if state.committed == 0 or state.acquired:
                reason = "nothing was committed" if state.committed == 0 else "it is already acquired"
                raise ProtocolViolation(f"acquire of '{name}' but {reason}")
            state.acquired = True
        else:
            if not state.acquired:
                raise ProtocolViolation(f"release of '{name}' without an acquire")
            state.acquired, state.committed = False, state.committed - 1
        self.trace.steps += 1
        for buf, st in self.state.items():
            if st.holds_data():
                self.trace.live_steps.setdefault(buf, set()).add(self.trace.steps)

    def check_shared_storage(self, buffer: SSAValue) -> None:
        bind = buffer.owner
        if not isinstance(bind, VbBindOp):
            return
        for other, state in self.state.items():
            if other is buffer or not state.holds_data():
                continue
            if isinstance(other.owner, VbBindOp) and other.owner.memory is bind.memory:
                raise ProtocolViolation(
                    f"'{buffer_label(buffer)}' is written while '{buffer_label(other)}', which shares its "
                    "storage, still holds data"
                )


def _evaluate(value: SSAValue, sizes: dict[str, int]) -> int:
    """The integer an index value takes for concrete block sizes (constants, syms, index arithmetic)."""
    op = value.owner
    if isinstance(op, SymOp):
        return sizes[op.label]
    if isinstance(op, arith.ConstantOp):
        return op.value.value.data
    if isinstance(op, arith.CeilDivUIOp):
        return -(-_evaluate(op.lhs, sizes) // _evaluate(op.rhs, sizes))
    if isinstance(op, arith.MuliOp):
        return _evaluate(op.lhs, sizes) * _evaluate(op.rhs, sizes)
    if isinstance(op, arith.AddiOp):
        return _evaluate(op.lhs, sizes) + _evaluate(op.rhs, sizes)
    raise ProtocolViolation(f"cannot evaluate the loop bound {value} for concrete sizes")
