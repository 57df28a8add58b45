"""The Tensix compute pipeline: three threads (unpacker, math, packer) that overlap.

Each thread works through the compute role's instructions in order. An instruction is a run of
`n` items (`loom.cost.Stages`); item j leaves the unpackers at U_j, math at M_j, the packer at P_j:

    U_j = U_0 + j u                      (the unpackers side by side: u = the slowest one's share)
    M_j = max(M_{j-1}, U_j) + m          M_0 = when math is free, plus the call's set-up
    P_j = max(P_{j-1}, M_j) + p          P_0 = when the packer is free

U_j is linear in j, so M_j is the largest of three lines in j and every max over j sits at j = 1
or j = n: M_n = max(M_0 + n m, U_1 + n m, U_n + m), and P_n = max(P_0 + n p, M_1 + n p, M_n + p),
each O(1). The packer then drains (a reduction's result, a matmul's output block).

The compute role's clock is the unpacker's: it moves on to the next instruction when its
unpacking is done (TT-Metal's `cb_wait_front` / `cb_pop_front` run on the unpack thread). The
unpacker fills one source-register bank while math reads the other, so it finishes an
instruction's last item no earlier than math starts that item (U_n >= M_n - m). Its
results land in L1 when the packer is done: a `CbPush` becomes visible then (`cb_push_back` runs
on the pack thread), and an instruction that reads a local buffer waits for the packer to have
written it. A matmul's accumulator stays in the destination register between K steps and is not
waited for.
"""

from __future__ import annotations

from loom.cost import Stages


class Threads:
    """When each of one core's three compute threads is next free, and when each local buffer's
    last write lands in L1."""

    __slots__ = ("math", "pack", "written")

    def __init__(self, start: float = 0.0) -> None:
        self.math = start  # the kernel starts every thread at its launch
        self.pack = start
        self.written: dict[str, float] = {}

    def run(self, stages: Stages, start: float, reads: tuple[str, ...], writes: tuple[str, ...]) -> float:
        """Run one instruction whose unpacking may start at `start`; returns when the unpackers are
        done with it (the role's next instruction may start then)."""
        u0 = max([start] + [self.written.get(name, 0.0) for name in reads])
        n = stages.items
        if n <= 0:
            return u0
        u = max(stages.unpack, default=0)
        m, p = stages.math, stages.pack
        m0 = self.math + stages.setup
        u1, un = u0 + u, u0 + n * u
        m1 = max(m0, u1) + m
        mn = max(m0 + n * m, u1 + n * m, un + m)
        pn = max(self.pack + n * p, m1 + n * p, mn + p) + stages.drain
        self.math, self.pack = mn, pn
        for name in writes:
            self.written[name] = pn
        return max(un, mn - m)


__all__ = ["Threads"]
