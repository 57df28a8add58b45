"""The simulator's three compute threads: the O(1) closed form equals the item-by-item recurrence."""

from __future__ import annotations

import random

import pytest

from loom.cost import Stages
from loom.sim.tensix import Threads


def _recurrence(stages: Stages, start: float, math_free: float, pack_free: float) -> tuple[float, float]:
    """Item by item: U_j = U_0 + j u; M_j = max(M_{j-1}, U_j) + m; P_j = max(P_{j-1}, M_j) + p."""
    u = max(stages.unpack, default=0)
    unpacked, math_, pack = start, math_free + stages.setup, pack_free
    for _ in range(stages.items):
        unpacked += u
        math_ = max(math_, unpacked) + stages.math
        pack = max(pack, math_) + stages.pack
    return math_, pack + stages.drain


@pytest.mark.parametrize("seed", range(20))
def test_closed_form_matches_the_recurrence(seed):
    rng = random.Random(seed)
    threads = Threads(start=0.0)
    now = 0.0
    for _ in range(6):  # a run of instructions, each starting where the unpacker left off
        stages = Stages(rng.randint(1, 12), tuple(rng.choice([0, 8, 48, 96]) for _ in range(rng.randint(0, 2))),
                        rng.choice([4, 16, 32, 147]), rng.choice([0, 8, 16]), rng.choice([0, 100]),
                        rng.choice([0, 16, 64]))
        math_end, pack_end = _recurrence(stages, now, threads.math, threads.pack)
        now = threads.run(stages, now, (), ())
        assert threads.math == pytest.approx(math_end)
        assert threads.pack == pytest.approx(pack_end)
        assert now >= threads.math - stages.math  # the unpacker is at most one item ahead of math


def test_an_unpack_bound_matmul_is_paced_by_the_unpacker():
    stages = Stages(items=8, unpack=(4 * 48, 2 * 48), math=8 * 16, pack=0, setup=0, drain=8 * 8)
    threads = Threads()
    threads.run(stages, 0.0, (), ())
    assert threads.pack == 8 * 4 * 48 + 8 * 16 + 8 * 8  # every step waits for a's 4 tiles; then the drain


def test_a_read_of_a_local_buffer_waits_for_its_pack():
    threads = Threads()
    first = Stages(4, (8,), 147, 8)
    threads.run(first, 0.0, (), ("t",))
    written = threads.written["t"]
    done = threads.run(Stages(1, (8,), 8, 8), 0.0, ("t",), ())
    assert done >= written + 8
