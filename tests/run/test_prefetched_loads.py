"""Prefetched loads (loom.backend.prefetched_loads): a writer that loads a block and then stores one in
the same loop body issues the next iteration's reads before it waits for the block to store."""

from __future__ import annotations

import pytest

from loom.backend import program as P
from loom.backend import split
from loom.backend.prefetched_loads import prefetch_loads
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run
from tests.conftest import EXAMPLES

IV = P.Affine.var("i")


def _body(load_cb="y"):
    return (P.CbReserve(load_cb), P.DramRead("Y", (IV, 0), load_cb), P.Barrier("reads"), P.CbPush(load_cb),
            P.CbWait("out"), P.DramWrite("C", (IV, 0), "out"), P.CbPop("out"))


def test_the_next_read_is_issued_before_the_wait_and_completed_after_the_store():
    writer = prefetch_loads([P.Loop("i", 3, _body())], {"y"})
    assert writer[:4] == [P.CbReserve("y"), P.DramRead("Y", (0, 0), "y"), P.Barrier("reads"), P.CbPush("y")]
    loop = writer[4]
    assert loop.count == 2
    assert loop.body == (P.CbReserve("y"), P.DramRead("Y", (IV + 1, 0), "y"),  # iteration i + 1's read first
                         P.CbWait("out"), P.DramWrite("C", (IV, 0), "out"), P.CbPop("out"),
                         P.Barrier("reads"), P.CbPush("y"))
    assert writer[5:] == [P.CbWait("out"), P.DramWrite("C", (2, 0), "out"), P.CbPop("out")]  # the last store


@pytest.mark.parametrize("writer, cbs", [
    ([P.Loop("i", 3, _body())], set()),  # a buffer of one slot: no room for the next block
    ([P.Loop("i", 1, _body())], {"y"}),  # one trip: nothing to issue ahead
    ([P.Loop("i", 3, _body()[:4])], {"y"}),  # loads only: nothing they wait behind
    ([P.Loop("i", 3, _body() + (P.CbReserve("y"),))], {"y"}),  # the body touches the buffer again
])
def test_loops_it_cannot_or_need_not_rotate_are_unchanged(writer, cbs):
    assert prefetch_loads(writer, cbs) == writer


def test_swiglu_prefetches_on_the_writer_matches_torch_and_runs_faster(monkeypatch):
    source = load_kernel_file(EXAMPLES / "swiglu.py")
    shape = {"M": 512, "N": 512}
    args = source.example_args(shape)
    compilation = compile_kernel(source.kernel, args, "wormhole_n150", shape=shape,
                                 block_sizes={"tile_m": 64, "tile_n": 32}, top_k=0)
    # tile_n's two blocks per core in the innermost loop (the model ties it with tile_m's in the outer one)
    compilation.ranked = [next(r for r in compilation.ranked if r.model.candidate.name.startswith("x1x8_y8."))]
    prefetched = run(compilation, args, reference=source.reference)
    assert prefetched.check.ok, prefetched.check
    writer = list(P.walk(prefetched.program.groups[0].writer))  # in program order, loop bodies once
    first_wait = next(n for n, i in enumerate(writer) if isinstance(i, P.CbWait))
    assert sum(isinstance(i, P.CbReserve) for i in writer[:first_wait]) == 2  # block 0, and block 1 ahead
    monkeypatch.setattr(split, "prefetch_loads", lambda writer, cbs: writer)
    plain = run(compilation, args, reference=source.reference)
    assert plain.check.ok, plain.check
    assert prefetched.sim.cycles < plain.sim.cycles
