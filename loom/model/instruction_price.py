"""The model's price of one compute instruction (`loom.cost.Stages`: items through the Tensix's unpack, math
and pack threads), on idle threads or overlapping the instruction before it. The simulator runs the three
threads itself (`loom.sim.tensix`); these are the model's own equations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from loom import cost
from loom.model import expr as E

if TYPE_CHECKING:
    from loom.arch import Arch


def instruction(arch: Arch, stages: cost.Stages, label: str | None = None) -> E.Expr:
    """The model's price of one compute instruction on idle threads: n items flow through unpack (u
    each), math (m each, after a set-up s) and pack (p each), then the packer drains d. Math ends
    at max(s + n m, u + n m, n u + m) (math-bound, or waiting on the unpacker's last item), the
    packer at max(n p, max(s, u) + m + n p, math's end + p), plus d. (The simulator runs the three
    threads itself; this is the model's own equation for one instruction.)"""
    n, m, p = stages.items, stages.math, stages.pack
    u = E.maximum(*stages.unpack, 0)
    math_end = E.maximum(E.add(stages.setup, E.mul(n, m)), E.add(u, E.mul(n, m)), E.add(E.mul(n, u), m))
    if p == 0:  # nothing packed per item (a matmul, a reduction): the packer only drains after math
        return E.add(math_end, stages.drain, label=label)
    first = E.add(E.maximum(stages.setup, u), m)
    pack_end = E.maximum(E.mul(n, p), E.add(first, E.mul(n, p)), E.add(math_end, p))
    return E.add(pack_end, stages.drain, label=label)


def instruction_throughput(arch: Arch, stages: cost.Stages, label: str | None = None) -> E.Expr:
    """The model's price of one compute instruction whose unpacking overlaps the instruction before it
    (its inputs were loaded, not just computed): the busiest of the three threads, max(n u, s + n m,
    n p + d), its first item's fill hidden behind the previous instruction's math."""
    n = stages.items
    u = E.maximum(*stages.unpack, 0)
    return E.maximum(E.mul(n, u), E.add(stages.setup, E.mul(n, stages.math)),
                     E.add(E.mul(n, stages.pack), stages.drain), label=label)
