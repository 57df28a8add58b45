"""Each core's kernel setup (`kernel_setup_cycles`): every role starts that long after the launch, so
the kernel time grows by exactly the setup and nothing else moves (benchmarks/fit_sim.py adds setup
candidates to simulated times on that ground); an in-kernel timer (`program_cycles`) does not see it;
the model adds it as a fixed cost."""

from __future__ import annotations

import pytest

from loom.calibrate.gemm import program_figures
from loom.sim import simulate
from loom.sim.gemm_workload import gemm_program, ttnn_default_config
from loom.sim.workloads import microbenchmarks


def _with_setup(arch, cycles: int):
    return arch.model_copy(update={"kernel_setup_cycles": cycles})


@pytest.mark.parametrize("shape", [(256, 512, 256), (1024, 2048, 1024)])
def test_setup_adds_itself_to_a_gemm_and_moves_nothing_else(wh, shape) -> None:
    none, some = _with_setup(wh, 0), _with_setup(wh, 777)
    program = gemm_program(none, ttnn_default_config(none, *shape, dtype="bfp8_b"))
    before, after = program_figures(program, none), program_figures(program, some)
    assert after["kernel_cycles"] == pytest.approx(before["kernel_cycles"] + 777, abs=1e-6)
    assert after["trisc1_cycles"] == pytest.approx(before["trisc1_cycles"] + 777, abs=1e-6)
    a, b = simulate(program, none), simulate(program, some)
    assert b.kernel_cycles == pytest.approx(a.kernel_cycles + 777, abs=1e-6)
    assert b.program_cycles == pytest.approx(a.program_cycles, abs=1e-6)
    assert b.dram_read_bytes == a.dram_read_bytes and b.busiest_link == a.busiest_link


def test_an_in_kernel_timer_does_not_see_the_setup(wh) -> None:
    bench = microbenchmarks(wh)["dram_read"]
    a = simulate(bench.program, _with_setup(wh, 0))
    b = simulate(bench.program, _with_setup(wh, 1234))
    assert b.program_cycles == pytest.approx(a.program_cycles, abs=1e-6)
    assert b.kernel_cycles - a.kernel_cycles == pytest.approx(1234, abs=1e-6)


def test_the_model_adds_the_setup_to_every_candidate_as_a_fixed_cost() -> None:
    import loom
    from loom.arch import load_arch
    from loom.kernel_file import load_kernel_file
    from loom.mapping.candidates import enumerate_candidates
    from loom.model.constraints import build_model
    from loom.model.expr import evaluate
    from tests.conftest import EXAMPLES

    gemm = load_kernel_file(EXAMPLES / "matmul.py")
    none = _with_setup(load_arch("wormhole_n150"), 0)
    some = _with_setup(none, 500)
    module = loom.lower(gemm.kernel, gemm.example_args({"M": 256, "N": 256, "K": 256}, meta=True), none).module
    (candidate, *_) = enumerate_candidates(module, none, False).candidates
    a, b = build_model(module, candidate, none), build_model(module, candidate, some)
    values = {"tile_m": 64, "tile_n": 64, "tile_k": 64, **{k: 0 for k in a.problem.knobs}}
    assert evaluate(b.problem.objective, values) - evaluate(a.problem.objective, values) == 500
