"""TT-Lang backend: emitted programs run in tt-lang-sim, match torch and read DRAM as loom.sim counts."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from loom.arch import load_arch
from loom.backend import program as P
from loom.backend.split import build_program
from loom.backend.ttlang import emit_ttlang
from loom.backend.ttlang_notes import schedule_notes, torch_reference
from loom.backend.ttlang_sim import TtlangSimError, run_ttlang_sim
from loom.cli import app
from loom.errors import UnsupportedError
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import padded_inputs, tolerance
from loom.sim import simulate
from tests.conftest import EXAMPLES, check_golden

ARCHS = ("wormhole_n150", "blackhole_p150")
SHAPES = {
    "matmul": {"M": 256, "N": 256, "K": 128},
    "flash_attention": {"B": 1, "H": 2, "L": 128, "D": 64},
    "flash_decode": {"B": 2, "H": 2, "L": 256, "D": 64},
}
GEMM_MCAST_SIZES = {"tile_m": 32, "tile_n": 32, "tile_k": 64}  # 8x8 cores, A along rows, B down columns


@functools.cache
def _compiled(kernel: str, arch: str, sizes: tuple = (), top_k: int = 1):
    source = load_kernel_file(EXAMPLES / f"{kernel}.py")
    args = source.example_args(SHAPES[kernel])
    compilation = compile_kernel(source.kernel, args, arch, shape=SHAPES[kernel],
                                 block_sizes=dict(sizes) or None, top_k=top_k, portable=True)
    return source, args, compilation


def _multicasts(ranked) -> int:
    return sum(1 for t in ranked.model.candidate.transfers if t.direction == "load" and t.receivers > 1)


def _schedule(kernel: str, arch: str, which: str):
    """(source, args, compilation, ranked) of the solver's schedule or a multicast-heavy one.

    GEMM's multicast schedule fixes the block sizes so that the 8x8 view multicasts A and B; for
    attention it is the candidate with the most multicast loads. Flash Decode has no multicast
    candidate (each (batch, head) reads its own q, k and v), so its second schedule is the
    next-ranked candidate (another core view)."""
    if kernel == "matmul":
        if which == "solver":
            source, args, c = _compiled(kernel, arch)
            return source, args, c, c.ranked[0]
        source, args, c = _compiled(kernel, arch, tuple(sorted(GEMM_MCAST_SIZES.items())), 0)
        best = max(c.ranked, key=lambda r: (_multicasts(r), -c.ranked.index(r)))
        return source, args, c, best
    source, args, c = _compiled(kernel, arch, (), 0)
    if which == "solver":
        return source, args, c, c.ranked[0]
    if kernel == "flash_decode":
        return source, args, c, next(r for r in c.ranked[1:] if r.name != c.ranked[0].name)
    return source, args, c, max(c.ranked, key=lambda r: (_multicasts(r), -c.ranked.index(r)))


def _run(source, args, compilation, ranked):
    arch = compilation.lowering.arch
    program = build_program(compilation.lowering.stages["concrete"], ranked, arch)
    outcome = run_ttlang_sim(program, arch, padded_inputs(program, args),
                             source_notes=schedule_notes(compilation, ranked))
    return program, outcome


@pytest.mark.parametrize("which", ["solver", "multicast"])
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", list(SHAPES))
def test_emitted_program_matches_torch_and_loom_dram_reads(kernel, arch, which):
    source, args, compilation, ranked = _schedule(kernel, arch, which)
    program, outcome = _run(source, args, compilation, ranked)

    expected = source.reference(*args)
    ref = expected.detach().float().numpy()
    (out,) = [t for t in program.tensors if t.kind == "output"]
    got = outcome.outputs[out.name][tuple(slice(0, s) for s in ref.shape)]
    assert np.abs(got - ref).max() <= tolerance(ref, expected.dtype), (ranked.name, np.abs(got - ref).max())

    # Cross-check: tt-lang-sim's per-tensor DRAM tile reads are loom.sim's.
    loom_sim = simulate(program, compilation.lowering.arch, extrapolate=False)
    assert outcome.dram_read_tiles == {k: int(v) for k, v in loom_sim.dram_read_tiles_by_tensor.items() if v}
    written = {k: int(v) for k, v in loom_sim.dram_write_tiles_by_tensor.items() if v}
    assert outcome.dram_write_tiles == written

    mcast = _multicasts(ranked)
    if which == "multicast" and kernel != "flash_decode":
        assert mcast >= 2, ranked.name
    if mcast:  # every multicast group is a pipe: each block sent once reaches all its receivers
        assert sum(outcome.pipe_received_tiles.values()) >= sum(outcome.pipe_tiles.values()) > 0
    else:
        assert not outcome.pipe_tiles
    assert torch.bfloat16 is not torch.float32  # tt-lang-sim's dtype promotion does not leak out


def _golden_gemm() -> str:
    source, args, compilation, ranked = _schedule("matmul", "wormhole_n150", "multicast")
    assert ranked.name == "x1x8_y8.mn.x:row.y:column"
    program = build_program(compilation.lowering.stages["concrete"], ranked, compilation.lowering.arch)
    return emit_ttlang(program, compilation.lowering.arch, source_notes=schedule_notes(compilation, ranked),
                       reference=torch_reference(compilation, source.reference))


def test_golden_gemm_text_runs_standalone(tmp_path):
    text = _golden_gemm()
    check_golden("matmul.ttlang.py", text)
    assert "ttl.PipeNet(x_tile_pipes)" in text and "ttl.PipeNet(y_tile_pipes)" in text
    path = tmp_path / "matmul_ttl.py"
    path.write_text(text)
    tool = Path(sys.executable).parent / "tt-lang-sim"
    done = subprocess.run([str(tool), str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "OK" in done.stdout, done.stdout + done.stderr


def test_hand_written_programs():
    """Programs not made by split.py: a multi-core group indexed by `cx` and TTNN's 2-D multicast GEMM,
    whose senders sit outside the rectangle they multicast to."""
    from loom.sim.gemm_workload import gemm_grid_config, gemm_program
    from loom.sim.workloads import softmax_program

    arch = load_arch("wormhole_n150")
    x = np.random.default_rng(0).standard_normal((128, 128)).astype(np.float32)
    outcome = run_ttlang_sim(softmax_program(arch, 128, 128, cores=4), arch, {"X": x})
    e = np.exp(x - x.max(1, keepdims=True))
    assert np.abs(outcome.outputs["Y"] - e / e.sum(1, keepdims=True)).max() < 1e-5

    gemm = gemm_program(arch, gemm_grid_config(arch, 128, 128, 128, (2, 2), 2))
    a, b = (np.random.default_rng(s).standard_normal((128, 128)).astype(np.float32) for s in (1, 2))
    outcome = run_ttlang_sim(gemm, arch, {"A": a, "B": b})
    assert np.abs(outcome.outputs["C"] - a @ b).max() < 1e-3
    assert outcome.dram_read_tiles == {"A": 16, "B": 16}  # each block read once, then multicast
    assert len(outcome.pipe_tiles) == 4


def _tiny(reader=(), compute=(), writer=(), cbs=(P.CB("a", "bfloat16", 1, 2),), buffers=()) -> P.Program:
    tensors = (P.Tensor("x", (64, 64), "bfloat16"), P.Tensor("y", (64, 64), "bfloat16", "output"))
    group = P.CoreGroup(((0, 0), (1, 0)), cbs, buffers, (P.Semaphore("s"),), reader, compute, writer)
    return P.Program("wormhole_n150", tensors, (group,), "tiny")


@pytest.mark.parametrize("program, why", [
    (_tiny(reader=(P.CbReserve("a"), P.DramRead("x", (0, 0), "a", 1, 1), P.CbPush("a"))),
     "moves a 1x1 tile block at offset 0 of CB 'a' whose block is 1x2"),
    (_tiny(reader=(P.CbReserve("a"), P.Write((1, 0), "a"), P.CbPush("a"))),
     "Write moves L1 data between cores"),
    (_tiny(reader=(P.SemWait("s", 1),)), "semaphore 's' is not part of a multicast"),
    (_tiny(compute=(P.CbWait("a"), P.Copy(P.Ref("a", 0, 1, 1, 1), P.Ref("t")), P.CbPop("a")),
           buffers=(P.Buffer("t", "float32", 1, 1),)), "uses a sub-block of 'a'"),
    (_tiny(reader=(P.CbReserve("a"), P.DramRead("x", (0, 0), "a", 1, 2),
                   P.Multicast((0, 0), (1, 0), "a", loopback=True), P.CbPush("a"))),
     "loopback multicast"),
])
def test_unsupported_programs_say_what_and_why(program, why):
    with pytest.raises(UnsupportedError, match="unsupported") as err:
        emit_ttlang(program, "wormhole_n150")
    assert why in str(err.value)


def test_simulator_errors_are_reported():
    """A program the simulator cannot finish (compute waits for a CB nobody fills) names the blocked wait."""
    program = _tiny(compute=(P.CbWait("a"), P.Copy(P.Ref("a"), P.Ref("t")), P.CbPop("a")),
                    buffers=(P.Buffer("t", "float32", 1, 2),))
    with pytest.raises(TtlangSimError, match=r"Deadlock.*blocked on wait\(\) on DataflowBuffer\(a_dfb\)"):
        run_ttlang_sim(program, "wormhole_n150", {"x": np.zeros((64, 64), np.float32)})
    assert torch.bfloat16 is not torch.float32


def test_cli_emit_and_run_ttlang_sim(tmp_path):
    out = tmp_path / "out" / "matmul_ttl.py"
    sizes = ",".join(f"{k}={v}" for k, v in GEMM_MCAST_SIZES.items())
    common = ["examples/matmul.py", "--arch", "wormhole_n150", "--shape", "M=256,N=256,K=128",
              "--block-sizes", sizes]
    result = CliRunner().invoke(app, ["emit", *common, "--target", "ttlang", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "@ttl.operation(grid=GRID)" in out.read_text()
    result = CliRunner().invoke(app, ["run", *common, "--backend", "ttlang-sim", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "matches the torch reference" in result.stdout
    assert "read x 32 (loom.sim 32), y 32 (loom.sim 32)" in result.stdout
    assert "pipe_(0,0)_to_(1:8,0): 4 tiles sent, 28 received" in result.stdout
    result = CliRunner().invoke(app, ["run", *common, "--backend", "metalium"])
    assert result.exit_code == 2 and "expected loom-sim or ttlang-sim" in result.output


@pytest.mark.parametrize("kernel", ["examples/kl_div.py", "row_stats"])
def test_cli_ttlang_sim_checks_vector_and_several_outputs(tmp_path, kernel):
    """The tt-lang-sim run checks its outputs as `loom run` does: a rank-1 output held as a column
    (kl_div's per-row loss); two outputs paired in return order, one a batch of columns (`row_stats`)."""
    if kernel == "row_stats":
        from tests.run.test_batch_tiles import ROW_STATS

        kernel = tmp_path / "row_stats.py"
        kernel.write_text(ROW_STATS)
    result = CliRunner().invoke(app, ["run", str(kernel), "--arch", "wormhole_n150", "--backend", "ttlang-sim",
                                      "--quiet"])
    assert result.exit_code == 0, result.output
    assert "matches the torch reference" in result.stdout
