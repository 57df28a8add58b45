"""Stage 5 on demand and the bounds in worker processes: the bounds are those of bounding every model
here, this process builds none of the models it does not solve, and a model that fails to build
fails here with its own error."""

from __future__ import annotations

import pytest

import loom.model.models as models_module
import loom.solve.order as order
from loom.arch import load_arch
from loom.errors import UnsupportedError
from loom.kernel_file import load_kernel_file
from loom.mapping.candidates import enumerate_candidates
from loom.model.models import CandidateModels
from loom.passes.l1_footprint import l1_footprint
from loom.pipeline import compile as compile_kernel
from loom.pipeline import lower
from loom.solve.bound import lower_bound
from tests.conftest import EXAMPLES

SHAPE = {"M": 512, "N": 512, "K": 256}


def candidate_models(arch_name: str = "wormhole_n150") -> CandidateModels:
    source = load_kernel_file(EXAMPLES / "matmul.py")
    arch = load_arch(arch_name)
    concrete = lower(source.kernel, source.example_args(SHAPE, meta=True), arch).module
    candidates = enumerate_candidates(concrete, arch).candidates
    return CandidateModels(concrete, candidates, arch, l1_footprint(concrete, (32, 32)))


def test_worker_bounds_are_the_bounds_and_build_nothing_here():
    models = candidate_models()
    assert len(models) >= order.BOUND_POOL_MIN
    got = order.lower_bounds(models, jobs=2)
    assert not models.seconds and all(m is None for m in models._built)  # every model was built in a worker
    assert got == [lower_bound(m.problem) for m in models]


def test_a_model_that_fails_in_a_worker_fails_here(monkeypatch):
    models = candidate_models()
    broken = models.names[5]
    build = models_module.build_model

    def build_or_fail(concrete, candidate, arch, footprint):
        if candidate.name == broken:
            raise UnsupportedError(f"cannot model {candidate.name}")
        return build(concrete, candidate, arch, footprint)

    monkeypatch.setattr(models_module, "build_model", build_or_fail)
    with pytest.raises(UnsupportedError, match=f"cannot model {broken}"):
        order.lower_bounds(models, jobs=2)


def test_jobs_change_no_schedule_and_solve_builds_few_models():
    source = load_kernel_file(EXAMPLES / "matmul.py")
    args = source.example_args(SHAPE, meta=True)
    one, two = (compile_kernel(source.kernel, args, "wormhole_n150", shape=SHAPE, jobs=j) for j in (1, 2))
    assert [(r.name, r.cycles, r.values) for r in one.ranked] == [(r.name, r.cycles, r.values) for r in two.ranked]
    assert two.counts.solved < len(two.candidates.candidates)
