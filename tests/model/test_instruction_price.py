"""The model's two prices of a compute instruction against the simulator's three threads: one
instruction on idle threads (`instruction`), and a K loop's matmul whose unpacking overlaps the
step before it (`instruction_throughput`, its busiest thread)."""

from __future__ import annotations

import pytest

from loom import cost
from loom.arch import load_arch
from loom.model import expr as E
from loom.model.latency import instruction, instruction_throughput
from loom.sim.tensix import Threads

BF16 = ("bfloat16", "bfloat16", "bfloat16")


@pytest.mark.parametrize("m, n, k", [(4, 4, 2), (8, 8, 8), (4, 32, 2), (1, 1, 16)])
def test_a_k_loop_of_matmuls_costs_its_busiest_thread_per_step(m, n, k):
    arch = load_arch("blackhole_p150")
    stages = cost.matmul(arch, m, n, k, BF16)
    steps = 50
    threads = Threads()
    unpacked = 0.0
    for _ in range(steps):  # the K loop: every step's operands already loaded
        unpacked = threads.run(stages, unpacked, (), ())
    simulated = threads.math
    one = E.evaluate(instruction(arch, stages), {})
    per_step = E.evaluate(instruction_throughput(arch, stages), {})
    assert per_step <= one
    # steps x the busiest thread, plus one first-item fill: the simulator's K loop
    assert simulated == pytest.approx(steps * per_step + (one - per_step), rel=0.02)
    assert steps * one > simulated or one == per_step  # the one-shot price would over-count the fills
