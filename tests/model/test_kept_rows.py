"""Reuse across passes: a row that two device loops of the tile body load alike (RMSNorm's sum of
squares, then its output) may be read once into L1 for both (the `keep_` knob), trading its L1
against the second pass's reads."""

from __future__ import annotations

import pytest

import loom
from loom.arch import load_arch
from loom.kernel_file import load_kernel_file
from loom.mapping.candidates import enumerate_candidates
from loom.model import expr as E
from loom.model.constraints import build_model
from loom.model.heg import Pipe
from loom.pipeline import compile as compile_kernel
from loom.run import run
from tests.conftest import EXAMPLES, run_kernel_text

RMS_NORM = load_kernel_file(EXAMPLES / "rms_norm.py")
SOFTMAX = load_kernel_file(EXAMPLES / "softmax.py")


def _models(source, shape, arch="wormhole_n150", portable=False):
    target = load_arch(arch)
    module = loom.lower(source.kernel, source.example_args(shape, meta=True), target).module
    return [build_model(module, c, target) for c in enumerate_candidates(module, target, portable).candidates]


def _keep(model):
    return next((k for k in model.knobs if k.kind == "keep"), None)


def test_two_passes_over_one_row_declare_a_keep_knob_on_the_tile_pipe():
    for model in _models(RMS_NORM, {"M": 256, "N": 512}):
        knob = _keep(model)
        assert knob is not None and knob.name == "keep_x"
        assert isinstance(model.heg.child, Pipe) and model.heg.child.keep is knob.keep
        assert [p.tensor for p in knob.keep.loads] == ["x"] and len(knob.keep.later) == 1
        assert knob.keep.loops == ((512, "tile_n"),)
    layer_norm = load_kernel_file(EXAMPLES / "layer_norm.py")  # whole rows already: one load
    assert not any(_keep(m) for m in _models(layer_norm, {"M": 256, "N": 512}))


def test_portable_schedules_keep_no_rows():
    assert not any(_keep(m) for m in _models(RMS_NORM, {"M": 256, "N": 512}, portable=True))


TWO_TENSORS = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def two_tensors(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        total = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            total = total + torch.sum(x[tile_m, tile_n].to(torch.float32), dim=1)
        for tile_n in hl.tile(n):
            out[tile_m, tile_n] = (y[tile_m, tile_n].to(torch.float32) * total[:, None]).to(out.dtype)
    return out


def inputs(M: int = 64, N: int = 256):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, N, generator=gen), torch.randn(M, N, generator=gen))


def reference(x, y):
    return y * x.sum(dim=1, keepdim=True)
'''


def test_passes_over_other_tensors_keep_nothing(tmp_path):
    """The second pass reads y, not x: no row is read twice."""
    result = run_kernel_text(tmp_path, TWO_TENSORS)
    assert result.check.ok
    assert not any(k.kind == "keep" for r in result.compilation.ranked for k in r.model.knobs)


def test_keeping_the_row_costs_its_l1_and_saves_the_second_pass_reads():
    saved = []
    for model in _models(RMS_NORM, {"M": 4096, "N": 1024}):
        knob = _keep(model)
        values = {"tile_m": 32, "tile_n": 128, **{k: 0 for k in model.problem.knobs}}
        kept = {**values, knob.name: 1}
        growth = E.evaluate(model.footprint, kept) - E.evaluate(model.footprint, values)
        assert growth == 32 * 1024 * 2 - 2 * 32 * 128 * 2  # the row replaces both passes' bf16 blocks
        doubled = {**kept, knob.keep.overlap_knob: 1}
        assert E.evaluate(model.footprint, doubled) - E.evaluate(model.footprint, kept) == 32 * 1024 * 2
        saved.append(E.evaluate(model.problem.objective, values) - E.evaluate(model.problem.objective, kept))
    assert max(saved) > 0


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
@pytest.mark.parametrize("source", [RMS_NORM, SOFTMAX], ids=["rms_norm", "softmax"])
def test_kept_rows_match_torch_and_are_read_once(arch, source):
    shape = {"M": 128, "N": 1000}  # a tail: the row's last block is padded
    args = source.example_args(shape)
    compilation = compile_kernel(source.kernel, args, arch, shape=shape,
                                 block_sizes={"tile_m": 32, "tile_n": 128}, top_k=0)
    ranked = next(r for r in compilation.ranked if _keep(r.model))
    knob = _keep(ranked.model)
    reads = {}
    for keep, overlap in ((0, 0), (1, 0), (1, 1)):
        ranked.values = {**ranked.values, knob.name: keep, knob.keep.overlap_knob: overlap}
        compilation.ranked = [ranked]
        outcome = run(compilation, args, reference=source.reference)
        assert outcome.check.ok, (keep, overlap, outcome.check)
        reads[keep, overlap] = outcome.sim.dram_read_bytes_by_tensor["x"]
    assert reads[1, 0] == reads[1, 1] == reads[0, 0] / 2  # two passes, one read


def test_the_first_pass_computes_while_the_kept_row_arrives():
    """Block i of the kept row is waited for in iteration i of the first pass (a growing prefix, never
    popped there), so with one tile per core the row's reads overlap the first pass's compute; the model,
    which prices that first tile as the pass with its loads, stays within 20 % of the simulator."""
    from loom.backend.program import Affine, CbWait, walk

    shape = {"M": 64 * 32, "N": 1024}  # one 32-row tile per core of the 64 on wormhole_n150
    args = SOFTMAX.example_args(shape)
    compilation = compile_kernel(SOFTMAX.kernel, args, "wormhole_n150", shape=shape,
                                 block_sizes={"tile_m": 32, "tile_n": 256}, top_k=0)
    ranked = next(r for r in compilation.ranked if _keep(r.model))
    knob = _keep(ranked.model)
    ranked.values = {**ranked.values, knob.name: 1}
    compilation.ranked = [ranked]
    outcome = run(compilation, args, reference=SOFTMAX.reference)
    assert outcome.check.ok
    waits = [i for g in outcome.program.groups for i in walk(g.compute) if isinstance(i, CbWait)
             and isinstance(i.tiles, Affine)]
    assert waits and all(w.tiles.const == 8 and w.tiles.terms[0][1] == 8 for w in waits)  # (i + 1) x 1x8 tiles
    modelled = E.evaluate(ranked.model.problem.objective, ranked.values)
    assert abs(modelled / outcome.sim.cycles - 1) < 0.2, (modelled, outcome.sim.cycles)
