"""Temporal hoisting: a device loop's loads that do not depend on the innermost temporal axis may be
kept in L1 across that loop (a knob), trading L1 for DRAM traffic."""

from __future__ import annotations

import pytest

import loom
from loom.arch import load_arch
from loom.kernel_file import load_kernel_file
from loom.mapping.candidates import enumerate_candidates
from loom.model import expr as E
from loom.model.constraints import build_model
from loom.pipeline import compile as compile_kernel
from loom.run import run
from tests.conftest import EXAMPLES

GEMM = load_kernel_file(EXAMPLES / "matmul.py")


def _models(shape, arch="wormhole_n150", portable=False):
    target = load_arch(arch)
    module = loom.lower(GEMM.kernel, GEMM.example_args(shape, meta=True), target).module
    return [build_model(module, c, target) for c in enumerate_candidates(module, target, portable).candidates]


def test_the_operand_invariant_along_the_innermost_loop_is_hoistable():
    """A (x) does not depend on n, B (y) not on m: the innermost temporal axis decides which."""
    for model in _models({"M": 2048, "N": 2048, "K": 256}):
        if model.candidate.split is not None:
            assert not model.hoists
            continue
        (hoist,) = model.hoists
        assert hoist.tensors == (("x",) if model.candidate.order[-1] == "tile_n" else ("y",))
        assert hoist.loop == "tile_k_idx" and hoist.extent == 256


def test_keeping_a_panel_costs_l1_and_can_save_latency():
    saved = []
    for model in _models({"M": 2048, "N": 2048, "K": 256}):
        if not model.hoists:
            continue
        knob = model.hoists[0].knob
        values = {"tile_m": 64, "tile_n": 64, "tile_k": 64, **{k: 0 for k in model.problem.knobs}}
        kept = {**values, knob: 1}
        panel = 64 * 256 * 2 - 64 * 64 * 2  # the whole K extent instead of one block (bf16)
        assert E.evaluate(model.footprint, kept) - E.evaluate(model.footprint, values) == panel
        saved.append(E.evaluate(model.problem.objective, values) - E.evaluate(model.problem.objective, kept))
    assert max(saved) > 0  # where the loads bound the loop, reading the panel once pays


def test_portable_schedules_keep_no_panels():
    assert not any(m.hoists for m in _models({"M": 512, "N": 512, "K": 256}, portable=True))


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
def test_kept_panel_matches_torch_and_is_read_once_per_outer_iteration(arch):
    shape = {"M": 512, "N": 512, "K": 256}
    args = GEMM.example_args(shape)
    sizes = {"tile_m": 32, "tile_n": 32, "tile_k": 64}
    compilation = compile_kernel(GEMM.kernel, args, arch, shape=shape, block_sizes=sizes, top_k=0)
    ranked = next(r for r in compilation.ranked if r.model.hoists
                  and r.model.candidate.axis(r.model.candidate.order[-1]).spatial > 0)
    hoist = ranked.model.hoists[0]
    (tensor,) = hoist.tensors
    reads = {}
    for keep in (0, 1):
        ranked.values = {**ranked.values, hoist.knob: keep}
        compilation.ranked = [ranked]
        outcome = run(compilation, args, reference=GEMM.reference)
        assert outcome.check.ok, (keep, outcome.check)
        reads[keep] = outcome.sim.dram_read_bytes_by_tensor[tensor]
    inner = ranked.model.candidate.order[-1]
    axis = ranked.model.candidate.axis(inner)
    trips = -(-(-(-axis.extent // sizes[inner]) // axis.spatial))  # noqa: B002 - two ceiling divisions
    assert reads[1] < reads[0]
    if arch == "wormhole_n150":  # 16 tiles split evenly over 8 cores: read once instead of trips times
        assert reads[0] == pytest.approx(reads[1] * trips)


def test_a_kept_panel_is_priced_on_the_engine_the_program_reads_it_with(monkeypatch):
    """y is the second load of the k loop, so the writer issues it (`loom.mapping.engines.load_engines`), kept or
    not; the panel's fill is priced on that engine too, not numbered among the kept loads alone (where y is the
    first, the reader's)."""
    from loom.backend import program as P
    from loom.backend.split import build_program
    from loom.model.latency import LatencyModel

    stages = []
    load_stage = LatencyModel.load_stage

    def recording(self, loads, repeat, spread=None, issued_by=None):
        stages.append(([p.tensor for p in loads], issued_by))
        return load_stage(self, loads, repeat, spread, issued_by)

    monkeypatch.setattr(LatencyModel, "load_stage", recording)
    shape = {"M": 512, "N": 512, "K": 256}
    compilation = compile_kernel(GEMM.kernel, GEMM.example_args(shape, meta=True), "wormhole_n150", shape=shape,
                                 block_sizes={"tile_m": 32, "tile_n": 32, "tile_k": 64}, top_k=0)
    ranked = next(r for r in compilation.ranked if r.model.hoists and r.model.hoists[0].tensors == ("y",))
    assert (["y"], ["writer"]) in stages
    ranked.values = {**ranked.values, ranked.model.hoists[0].knob: 1}
    program = build_program(compilation.lowering.stages["concrete"], ranked, compilation.lowering.arch)
    issuing = {role for g in program.groups for role in ("reader", "writer")
               for i in P.walk(getattr(g, role)) if isinstance(i, P.DramRead) and i.tensor == "y"}
    assert issuing == {"writer"}
