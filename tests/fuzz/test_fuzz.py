"""Fuzzing compiled programs (issue #10): random kernels among the examples, random sizes (multiples
of 32 or any extent, a tail), random architectures and random *legal* schedules — a random candidate, random block sizes
from their domains and random pipeline knobs that satisfy every constraint (L1 included), or now and
then the solver's own choice. Every program must run in the simulator's functional mode, match the
torch reference, never deadlock and never exceed L1 (the backend and the simulator raise).

The normal suite runs a small fixed-seed subset (LOOM_FUZZ_EXAMPLES unset: 10 examples). `make fuzz`
runs 200 random ones; LOOM_FUZZ_EXAMPLES=n sets the count, LOOM_FUZZ_SEED=s fixes the seed, and
LOOM_FUZZ_SHRINK=1 lets Hypothesis shrink a failure to a smaller one (slow)."""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import replace
from functools import cache, lru_cache

import pytest
from hypothesis import HealthCheck, Phase, assume, given, note, seed, settings
from hypothesis import strategies as st

import loom
from loom.arch import load_arch
from loom.errors import LoomError, UnsupportedError
from loom.kernel_file import load_kernel_file
from loom.model import expr as E
from loom.model.constraints import block_domains
from loom.pipeline import compile as compile_kernel
from loom.run import run
from loom.schedule import NoScheduleError
from loom.solve.select import Ranked
from tests.conftest import EXAMPLES

ARCHS = ("wormhole_n150", "blackhole_p150", "ring32")
EXAMPLE_COUNT = int(os.environ.get("LOOM_FUZZ_EXAMPLES", "10"))
FIXED = "LOOM_FUZZ_EXAMPLES" not in os.environ  # the normal suite: a fixed subset


def extents(top: int) -> st.SearchStrategy[int]:
    """Multiples of 32 half the time, any extent (a tail) otherwise."""
    return st.one_of(st.integers(1, top // 32).map(lambda n: 32 * n), st.integers(1, top))


SIZE_ORDER = ["B", "H", "KV", "M", "N", "N1", "N2", "K", "S", "L", "D", "V", "C"]
ROWS = st.fixed_dictionaries({"M": extents(512), "N": extents(1024)})  # a row-wise kernel's (rows, row length)
SHAPES = {
    # issue 19's property: any GEMM extent up to 2000 when fuzzing on purpose; the normal suite keeps it small
    "matmul": st.fixed_dictionaries({d: extents(512 if FIXED else 2000) for d in "MNK"}),
    "flash_attention": st.fixed_dictionaries({"B": st.integers(1, 2), "H": st.integers(1, 3),
                                              "L": extents(512), "D": st.sampled_from([32, 64, 80, 128])}),
    "flash_decode": st.fixed_dictionaries({"B": st.integers(1, 3), "H": st.integers(1, 3),
                                           "L": extents(1024), "D": st.sampled_from([32, 64, 80, 128])}),
    "causal_attention": st.fixed_dictionaries({"B": st.integers(1, 2), "KV": st.integers(1, 2), "G": st.integers(1, 3),
                                               "L": extents(512), "D": st.sampled_from([32, 64, 128])}).map(
        lambda d: {"B": d["B"], "H": d["KV"] * d["G"], "KV": d["KV"], "L": d["L"], "D": d["D"]}),
    # issue 17's kernels: elementwise, row reductions and broadcasts, rank-1 weights, a whole-row tile
    **{name: ROWS for name in ("softmax", "softmax_rows", "layer_norm", "rms_norm", "kl_div", "swiglu",
                               "upper_row_sums", "batch_norm")},
    "matmul_bias_gelu": st.fixed_dictionaries({d: extents(512) for d in "MNK"}),
    "split_k_matmul": st.fixed_dictionaries({d: extents(512) for d in "MNK"}),  # atomic adds of a walked k split
    "bmm": st.fixed_dictionaries({"B": st.integers(1, 4), **{d: extents(256) for d in "MNK"}}),
    "rope": st.fixed_dictionaries({"H": st.integers(1, 4), "S": extents(512), "D": st.sampled_from([64, 128])}),
    # every head in one tile, cos / sin repeated down it; Helion reshapes a whole dimension of a power of two only
    "rope_pairs": st.fixed_dictionaries({"B": st.integers(1, 2), "H": st.sampled_from([1, 2, 4]), "S": extents(512),
                                         "D": st.sampled_from([64, 128])}),
    # per-tile partials sized by the row block; rows of one value leave x * inv_rms = +-1, where the input gradient
    # is a difference of equal terms (cancellation, not an error of the program): at least 2 columns
    "rms_norm_backward": st.fixed_dictionaries({"M": extents(512), "N": extents(1024).filter(lambda n: n > 1)}),
    "token_loss": st.fixed_dictionaries({"B": st.integers(1, 3), "L": extents(256), "V": extents(512)}),
    "cross_entropy_rows": st.fixed_dictionaries({"N": extents(512), "V": extents(1024)}),
    # Mamba's chunk state: [batch, seqlen, heads, dim] held permuted, tiles shifted by the chunk's start, a row and
    # a value of dA picked at row `c` of its tiles
    "chunk_state": st.fixed_dictionaries({"B": st.integers(1, 2), "H": st.integers(1, 3), "chunks": st.integers(1, 6),
                                          "C": st.sampled_from([32, 64, 128]), "D": extents(128),
                                          "N": extents(128)}).map(
        lambda d: {"B": d["B"], "L": d["C"] * d["chunks"], "H": d["H"], "D": d["D"], "N": d["N"], "C": d["C"]}),
    # gated delta net's decay: a column picked over up to 3 tiles of heads, a value at a place that moves with t
    "chunk_decay": st.fixed_dictionaries({"B": st.integers(1, 2), "L": st.integers(1, 4).map(lambda n: 64 * n),
                                          "H": st.integers(1, 80), "D": extents(128)}),
    # loads at tile positions shifted by N1 (whole tiles only), reaching outside x and y
    "concat": st.fixed_dictionaries({"M": extents(512), "N1": st.integers(1, 8).map(lambda n: 32 * n),
                                     "N2": extents(512)}),
}


@cache
def kernel_file(name: str):
    return load_kernel_file(EXAMPLES / f"{name}.py")


@lru_cache(maxsize=32)
def prepared(name: str, shape: tuple, arch: str):
    """Example arguments and block-size domains of one kernel at one shape on one architecture."""
    source = kernel_file(name)
    args = source.example_args(dict(shape))
    lowering = loom.lower(source.kernel, args, arch=arch)
    return args, block_domains(lowering.module, load_arch(arch))


@lru_cache(maxsize=32)
def compiled(name: str, shape: tuple, arch: str, block_sizes: tuple | None):
    """Every candidate at `block_sizes` (each with its best knobs), or the solver's choice if None."""
    args, _ = prepared(name, shape, arch)
    options = dict(block_sizes=dict(block_sizes), top_k=0) if block_sizes is not None else dict(time_limit_s=5.0)
    return compile_kernel(kernel_file(name).kernel, args, arch, shape=dict(shape), **options)


def reproducer(name: str, shape: dict, arch: str, chosen: Ranked) -> str:
    """The drawn case as a schedule file that `loom run --schedule` replays exactly."""
    problem = chosen.model.problem
    schedule = {"kernel": name, "arch": arch, "shape": shape, "candidate": chosen.name,
                "block_sizes": {k: v for k, v in chosen.values.items() if k in problem.domains},
                "knobs": {k: v for k, v in chosen.values.items() if k in problem.knobs}}
    return (f"kernel {name}, shape {shape}, arch {arch}, candidate {chosen.name}, values {chosen.values}\n"
            f"  reproduce: write {json.dumps(schedule)} to repro.json, then\n"
            f"  loom run examples/{name}.py --check --schedule repro.json")


def draw_schedule(data, name: str, shape: dict, arch: str):
    """A random legal schedule: (compilation, the Ranked to run)."""
    key = tuple(sorted(shape.items()))
    _, domains = prepared(name, key, arch)
    solver = data.draw(st.integers(0, 4), label="solver's choice if 0") == 0
    sizes = None if solver else tuple(sorted((label, data.draw(st.sampled_from(domain), label=label))
                                             for label, domain in domains.items()))
    try:
        compilation = compiled(name, key, arch, sizes)
    except NoScheduleError:
        assume(False)  # no candidate fits these block sizes (L1): not a legal schedule
    except UnsupportedError as err:  # a refusal with a reason (no mapping candidate): not a program to run
        note(f"refused: {err}")
        assume(False)
    if solver:
        return compilation, compilation.ranked[0]
    by_name = {r.name: r for r in compilation.ranked}
    pick = by_name[data.draw(st.sampled_from(sorted(by_name)), label="candidate")]
    problem = pick.model.problem
    legal = []
    for bits in itertools.product((0, 1), repeat=len(problem.knobs)):
        values = {**dict(sizes), **dict(zip(problem.knobs, bits))}
        if all(c.holds(values) for c in problem.constraints):
            legal.append(values)
    values = data.draw(st.sampled_from(legal), label="block sizes and knobs")  # pick's own knobs are legal
    return compilation, Ranked(pick.model, values, E.evaluate(problem.objective, values), True, 0.0)


def fuzz_settings(test):
    phases = [Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.shrink] if os.environ.get("LOOM_FUZZ_SHRINK")
                                                              else [])
    test = settings(max_examples=EXAMPLE_COUNT, deadline=None, derandomize=FIXED, database=None, phases=phases,
                    suppress_health_check=list(HealthCheck), print_blob=True)(test)
    if os.environ.get("LOOM_FUZZ_SEED"):
        test = seed(int(os.environ["LOOM_FUZZ_SEED"]))(test)
    return test


@fuzz_settings
@given(data=st.data())
def test_random_legal_schedules_run_and_match_torch(data):
    name = data.draw(st.sampled_from(sorted(SHAPES)), label="kernel")
    shape = dict(sorted(data.draw(SHAPES[name], label="shape").items(), key=lambda kv: SIZE_ORDER.index(kv[0])))
    arch = data.draw(st.sampled_from(ARCHS), label="arch")
    compilation, chosen = draw_schedule(data, name, shape, arch)
    where = reproducer(name, shape, arch, chosen)
    note(where)
    target = load_arch(arch)
    assert E.evaluate(chosen.model.footprint, chosen.values) <= target.l1.usable_bytes, where
    args, _ = prepared(name, tuple(sorted(shape.items())), arch)
    try:  # deadlocks, L1 overflow and malformed programs raise LoomErrors
        outcome = run(replace(compilation, ranked=[chosen]), args, reference=kernel_file(name).reference)
    except LoomError as err:
        pytest.fail(f"{type(err).__name__}: {err}\n{where}")
    assert outcome.check.ok, f"{outcome.check}\n{where}"
    assert outcome.sim.cycles > 0
