"""Loops over an enclosing tile, `for sub in hl.tile(tile_m.begin, tile_m.end)`: the tile walked in smaller
tiles (issue 19: loop bounds from an outer tile). Each trip starts at the enclosing tile's start plus
its own offset; the solver keeps the inner block a divisor of the outer one."""

from __future__ import annotations

import pytest

import loom
from loom.arch import load_arch
from loom.kernel_file import load_kernel_file
from loom.mapping.candidates import enumerate_candidates
from loom.model.constraints import build_model
from loom.pipeline import compile as compile_kernel
from loom.run import run
from loom.schedule import ScheduleError
from tests.conftest import run_kernel_text

HEADER = '''
import torch

import helion
import helion.language as hl
'''

ROWS = HEADER + '''

@helion.kernel(static_shapes=True)
def scaled_rows(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile(x.size()):
        for sub in hl.tile(tile_m.begin, tile_m.end):
            out[sub, tile_n] = x[sub, tile_n] * w[sub, tile_n] + 1.0
    return out


def inputs(M: int = 256, N: int = 128):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, N, generator=gen).bfloat16(), torch.randn(M, N, generator=gen).bfloat16())


def reference(x, w):
    return (x.float() * w.float() + 1.0).bfloat16()
'''

SUB_K = HEADER + '''

@helion.kernel(static_shapes=True)
def matmul_sub_k(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=x.dtype)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for outer_k in hl.tile(k):
            for inner_k in hl.tile(outer_k.begin, outer_k.end):
                acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])
        out[tile_m, tile_n] = acc.to(out.dtype)
    return out


def inputs(M: int = 128, N: int = 128, K: int = 512):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, K, generator=gen).bfloat16(), torch.randn(K, N, generator=gen).bfloat16())


def reference(x, y):
    return (x.float() @ y.float()).bfloat16()
'''


def _source(directory, text: str):
    """A kernel file of `text` in `directory`, loaded."""
    path = directory / "kernel.py"
    path.write_text(text)
    return load_kernel_file(path)


@pytest.mark.parametrize("arch, sizes", [
    ("wormhole_n150", None),
    ("blackhole_p150", {"M": 1000, "N": 200}),  # tails: the last enclosing tile runs padding sub-tiles
    ("ring32", {"M": 200, "N": 64}),
])
def test_a_grid_tile_walked_in_sub_tiles_matches_torch(tmp_path, arch, sizes):
    outcome = run_kernel_text(tmp_path, ROWS, arch, sizes)
    assert outcome.check.ok, outcome.check


def test_each_sub_tile_starts_at_the_enclosing_tiles_start(tmp_path):
    source = _source(tmp_path, ROWS)
    args = source.example_args({"M": 1024, "N": 256})
    compilation = compile_kernel(source.kernel, args, "wormhole_n150",
                                 block_sizes={"tile_m": 128, "tile_n": 64, "sub": 32})
    outcome = run(compilation, args, reference=source.reference)
    assert outcome.check.ok, outcome.check
    reader = outcome.program.groups[1].reader  # core (0, 1): the second 128-row tile
    loop = reader[0].body[0].body[0]
    assert loop.var == "sub_idx" and loop.count == 4  # 128 rows in 32-row tiles
    read = loop.body[1]
    assert str(read.index[0]) == "sub_idx + 4*t_tile_m + 4"  # tile row: the tile's 4 rows, then the sub-tile


def test_a_k_block_walked_in_smaller_steps_accumulates_every_one(tmp_path):
    source = _source(tmp_path, SUB_K)
    args = source.example_args({})
    compilation = compile_kernel(source.kernel, args, "wormhole_n150",
                                 block_sizes={"tile_m": 64, "tile_n": 64, "outer_k": 256, "inner_k": 64})
    outcome = run(compilation, args, reference=source.reference)
    assert outcome.check.ok, outcome.check


def test_the_inner_block_divides_the_outer_one(tmp_path):
    source = _source(tmp_path, ROWS)
    args = source.example_args({"M": 384, "N": 128})
    with pytest.raises(ScheduleError, match="sub divides tile_m"):
        compile_kernel(source.kernel, args, "wormhole_n150", block_sizes={"tile_m": 96, "tile_n": 128, "sub": 64})
    target = load_arch("wormhole_n150")
    module = loom.lower(source.kernel, source.example_args({"M": 384, "N": 128}, meta=True), target).module
    model = build_model(module, enumerate_candidates(module, target, False).candidates[0], target)
    assert any("sub divides tile_m" in c.name for c in model.problem.constraints)


def test_tt_lang_emits_the_sub_tiles_as_static_loops(tmp_path):
    from loom.backend.split import build_program
    from loom.backend.ttlang_sim import run_ttlang_sim
    from loom.run import padded_inputs

    source = _source(tmp_path, ROWS)
    args = source.example_args({})
    compilation = compile_kernel(source.kernel, args, "wormhole_n150", portable=True,
                                 block_sizes={"tile_m": 128, "tile_n": 64, "sub": 32})
    program = build_program(compilation.lowering.stages["concrete"], compilation.ranked[0], compilation.lowering.arch)
    outcome = run_ttlang_sim(program, compilation.lowering.arch, padded_inputs(program, args))
    expected = source.reference(*args).float().numpy()
    assert abs(outcome.outputs["out"][: expected.shape[0], : expected.shape[1]] - expected).max() < 0.2


BANDED = HEADER + '''

@helion.kernel(static_shapes=True)
def upper_row_sums(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m], dtype=torch.float32)
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(tile_m.begin, n):
            v = torch.where(tile_m.index[:, None] <= tile_n.index[None, :], x[tile_m, tile_n].float(), 0.0)
            acc = acc + v.sum(-1)
        out[tile_m] = acc
    return out


def inputs(M: int = 256, N: int = 256):
    return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)).bfloat16(),)


def reference(x):
    return torch.triu(x.float()).sum(-1)
'''


@pytest.mark.parametrize("arch, sizes", [
    ("wormhole_n150", {"M": 1000, "N": 700}),  # tails in both dimensions
    ("blackhole_p150", None),
    ("ring32", {"M": 2048, "N": 2048}),  # the balance knob pairs row blocks i and n - 1 - i
])
def test_a_loop_from_the_enclosing_tiles_start_matches_torch(tmp_path, arch, sizes):
    """`hl.tile(tile_m.begin, n)`: the mirror of causal attention's `hl.tile(0, tile_m.end)`; the blocks start
    at the row block's start, the mask keeps the upper triangle."""
    outcome = run_kernel_text(tmp_path, BANDED, arch, sizes)
    assert outcome.check.ok, outcome.check


def test_a_loop_from_a_tiles_start_takes_blocks_dividing_that_tile(tmp_path):
    from loom.model.heg import For, nodes

    source = _source(tmp_path, BANDED)
    target = load_arch("wormhole_n150")
    module = loom.lower(source.kernel, source.example_args({"M": 1024, "N": 1024}, meta=True), target).module
    model = build_model(module, enumerate_candidates(module, target, False).candidates[0], target)
    (loop,) = [n for n in nodes(model.heg) if isinstance(n, For) and n.until is not None]
    assert loop.until.from_start and loop.until.axis == "tile_m"
    assert any(c.name.startswith("tile_n divides tile_m") for c in model.problem.constraints)


def test_a_loop_over_a_tile_of_a_written_block_size_is_refused(tmp_path):
    from loom.errors import UnsupportedError

    source = _source(tmp_path, ROWS.replace("hl.tile(x.size())", "hl.tile(x.size(), block_size=[128, None])"))
    with pytest.raises(UnsupportedError, match="both block sizes left to the solver"):
        compile_kernel(source.kernel, source.example_args({"M": 384, "N": 128}), "wormhole_n150")


def test_a_loop_to_an_enclosing_tiles_start_is_refused_at_the_loop(tmp_path):
    """`hl.tile(0, tile_m.begin)` (keys before the query block) is not supported yet: the refusal names the
    loop's line and both bounds (it named the kernel's `def` line and a symbolic size)."""
    from loom.errors import UnsupportedError

    source = _source(tmp_path, ROWS.replace("hl.tile(tile_m.begin, tile_m.end)", "hl.tile(0, tile_m.begin)"))
    with pytest.raises(UnsupportedError, match=r"`sub` runs from 0 to `tile_m.begin`") as caught:
        compile_kernel(source.kernel, source.example_args({"M": 384, "N": 128}), "wormhole_n150")
    assert "for sub in hl.tile(0, tile_m.begin):" in str(caught.value)
