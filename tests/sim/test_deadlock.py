"""Deadlocks are reported as a typed error naming every waiting role and what it waits on."""

from __future__ import annotations

import pytest

from loom.backend import (
    CB,
    Barrier,
    CbPush,
    CbReserve,
    CbWait,
    CoreGroup,
    Multicast,
    Program,
    ProgramError,
    Semaphore,
    SemInc,
    SemWait,
    Write,
)
from loom.errors import LoomError
from loom.sim import DeadlockError, simulate


def test_misordered_semaphores_deadlock(wh) -> None:
    """Each core waits for the other's signal before sending its own."""
    sems = (Semaphore("go"),)
    a = CoreGroup(cores=((0, 0),), semaphores=sems, reader=(SemWait("go", 1), SemInc("go", 1, core=(1, 0))))
    b = CoreGroup(cores=((1, 0),), semaphores=sems, writer=(SemWait("go", 1), SemInc("go", 1, core=(0, 0))))
    with pytest.raises(DeadlockError) as info:
        simulate(Program(wh.name, (), (a, b), "handshake"), wh)
    err = info.value
    assert isinstance(err, LoomError)
    assert {(w.core, w.role, w.on, w.name) for w in err.waits} == {
        ((0, 0), "reader", "semaphore", "go"), ((1, 0), "writer", "semaphore", "go")}
    assert "core (0, 0) reader: waits on semaphore 'go' for value == 1, found value 0" in str(err)


def test_correct_order_finishes(wh) -> None:
    sems = (Semaphore("go"),)
    a = CoreGroup(cores=((0, 0),), semaphores=sems, reader=(SemInc("go", 1, core=(1, 0)), SemWait("go", 1)))
    b = CoreGroup(cores=((1, 0),), semaphores=sems, writer=(SemWait("go", 1), SemInc("go", 1, core=(0, 0))))
    r = simulate(Program(wh.name, (), (a, b), "handshake"), wh)
    assert r.kernel_cycles > 0


def test_cb_deadlock_names_wanted_and_available(wh) -> None:
    """A consumer waits for two blocks while the producer pushes one and stops."""
    g = CoreGroup(cores=((2, 3),), cbs=(CB("in", "bfloat16", 1, 4, 2),),
                  reader=(CbReserve("in"), CbPush("in")), compute=(CbWait("in", 8),))
    with pytest.raises(DeadlockError) as info:
        simulate(Program(wh.name, (), (g,), "cb"), wh)
    (wait,) = info.value.waits
    assert (wait.core, wait.role, wait.on, wait.name) == ((2, 3), "compute", "CB", "in")
    assert "8 visible tiles" in wait.wanted and wait.available == "4 visible"


def test_multicast_without_receiver_handshake_is_caught(wh) -> None:
    """Sending into a receiver CB that has no free space is a program error, not silent corruption."""
    cbs = (CB("buf", "bfloat16", 1, 1, 1),)
    sender = CoreGroup(cores=((0, 0),), cbs=cbs, writer=(CbReserve("buf"), Multicast((1, 0), (3, 0), "buf"),
                                                         Barrier()))
    full = CoreGroup(cores=((1, 0), (2, 0), (3, 0)), cbs=cbs, reader=(CbReserve("buf"), CbPush("buf")))
    with pytest.raises(ProgramError, match="expected at most its 0 free tiles"):
        simulate(Program(wh.name, (), (full, sender), "race"), wh)
    with pytest.raises(ProgramError, match="expected a participating core, found \\(5, 5\\)"):
        simulate(Program(wh.name, (), (CoreGroup(cores=((0, 0),), cbs=cbs,
                                                  writer=(Write((5, 5), "buf"),)),), "x"), wh)
