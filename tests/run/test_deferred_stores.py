"""Deferred store completion (loom.backend.deferred_stores): a writer whose stored buffer has two
slots issues each store and moves on, freeing the block before it waits for the next one."""

from __future__ import annotations

import dataclasses

import pytest

from loom.arch import load_arch
from loom.backend import program as P
from loom.backend.deferred_stores import defer_store_pops
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run
from loom.sim import simulate
from tests.conftest import EXAMPLES

BF16 = "bfloat16"


def test_the_first_wait_frees_nothing_and_the_rest_free_the_block_before():
    store = [P.CbWait("out"), P.DramWrite("C", (P.Affine.var("i"), 0), "out"), P.CbPop("out")]
    writer = defer_store_pops([P.Loop("i", 3, tuple(store))], {"out"})
    first_write = writer[1]
    assert writer[0] == P.CbWait("out") and first_write.index == (P.Affine(0), P.Affine(0))
    loop = writer[2]
    assert loop.count == 2 and loop.body[:2] == (P.Barrier("writes"), P.CbPop("out"))
    assert loop.body[3].index[0] == P.Affine.var("i") + 1  # the rest of the loop runs i + 1
    assert writer[3:] == [P.Barrier("writes"), P.CbPop("out")]
    assert defer_store_pops(writer[:0], {"out"}) == []  # never waits: nothing to free


def test_a_read_barrier_does_not_wait_for_a_store_in_flight():
    wh = load_arch("wormhole_n150")
    def writer(kind):
        return (P.CbWait("out"), P.DramWrite("C", (0, 0), "out", 4, 8), P.CbReserve("in"),
                P.DramRead("A", (0, 0), "in", 1, 1), P.Barrier(kind), P.CbPush("in"))
    tensors = (P.Tensor("A", (32, 32), BF16), P.Tensor("C", (128, 256), BF16, "output"))

    def program(kind):
        group = P.CoreGroup(cores=((0, 0),), cbs=(P.CB("out", BF16, 4, 8), P.CB("in", BF16)),
                            compute=(P.CbReserve("out"), P.CbPush("out"), P.CbWait("in"), P.CbPop("in")),
                            writer=writer(kind))
        return P.Program(wh.name, tensors, (group,))
    reads, everything = simulate(program("reads"), wh), simulate(program("all"), wh)
    assert reads.cycles == everything.cycles  # the kernel still ends when the store lands
    # the compute role is released by the read alone when the writer waits only for its reads
    assert _role_end(program("reads"), wh, "compute") < _role_end(program("all"), wh, "compute")


def _role_end(program, arch, role):
    from loom.sim.engine import Simulator

    sim = Simulator(program, arch)
    sim.run()
    return max(r.end for r in sim.roles if r.kind == role)


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150"])
def test_deferred_stores_match_torch_and_overlap(arch):
    source = load_kernel_file(EXAMPLES / "matmul.py")
    shape = {"M": 1024, "N": 512, "K": 64}
    args = source.example_args(shape)
    sizes = {"tile_m": 32, "tile_n": 64, "tile_k": 64}  # 256 output blocks: several per core
    compilation = compile_kernel(source.kernel, args, arch, shape=shape, block_sizes=sizes, top_k=0)
    best = compilation.ranked[0]
    knob = next(k for k in best.model.problem.knobs if k.startswith("overlap_store"))
    cycles = {}
    for on in (1, 0):
        compilation.ranked = [dataclasses.replace(best, values={**best.values, knob: on})]
        result = run(compilation, args, reference=source.reference)
        assert result.check.ok, result.check
        deferred = any(isinstance(i, P.Barrier) and i.kind == "writes"
                       for g in result.program.groups for i in P.walk(g.writer))
        assert deferred == bool(on)
        cycles[on] = result.sim.cycles
    assert cycles[1] < cycles[0]
