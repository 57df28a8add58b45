"""Tails (issue 19 part 1): a dimension whose extent is not a multiple of 32 is padded to whole tiles;
Helion's `_mask_to` before a reduction over it becomes a position mask (`loom.position_mask`, the per-core
`Mask`) so the padding takes the reduction's identity."""

from __future__ import annotations

import numpy as np
import pytest

import loom
from loom.arch import load_arch
from loom.backend import program as P
from loom.kernel_file import load_kernel_file
from loom.mapping.block_sizes import block_sizes
from loom.model.constraints import block_domains
from loom.pipeline import compile as compile_kernel
from loom.run import run
from loom.sim import simulate
from tests.conftest import ROOT, run_kernel_text

EXAMPLES = ROOT / "examples"


def _run(example: str, arch: str = "wormhole_n150", **sizes):
    """Compile an example at `sizes`, simulate it and check it against its reference()."""
    source = load_kernel_file(EXAMPLES / example)
    args = source.example_args(sizes)
    return run(compile_kernel(source.kernel, args, arch), args, reference=source.reference)


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
def test_a_gemm_with_tails_in_every_dimension_matches_torch(arch):
    """gelu(x @ w + bias) at 100 x 70 x 33: every dimension has a tail; K's padding is zero in both
    operands, so the products need no mask."""
    outcome = _run("matmul_bias_gelu.py", arch, M=100, N=70, K=33)
    assert outcome.check.ok, outcome.check


@pytest.mark.parametrize("example, sizes", [
    ("softmax.py", {"M": 40, "N": 100}),  # an online max and sum over column blocks
    ("softmax_rows.py", {"M": 40, "N": 100}),  # whole rows `x[tile_m, :]`
    ("layer_norm.py", {"M": 40, "N": 100}),  # a mean and a variance over the padded row
    ("flash_attention.py", {"L": 200}),  # a sequence tail: masked scores, zero V rows
    ("flash_decode.py", {"L": 100, "D": 80}),  # a head dimension Helion sizes as 128 in its tile shapes
    ("flash_decode.py", {"L": 128, "D": 96, "G": 4}),
])
def test_reductions_over_a_tail_match_torch(example, sizes):
    outcome = _run(example, **sizes)
    assert outcome.check.ok, outcome.check


def _frontend_text(example: str, **sizes) -> str:
    source = load_kernel_file(EXAMPLES / example)
    return str(loom.lower(source.kernel, source.example_args(sizes), stage="frontend").module)


def test_a_tail_mask_holds_the_real_extent_and_the_reductions_identity():
    text = _frontend_text("softmax_rows.py", M=40, N=100)
    masks = [line for line in text.splitlines() if "loom.position_mask" in line]
    assert len(masks) == 2, masks  # before amax and before sum
    assert any("fill = 0xff800000" in m for m in masks) and any("fill = 0.0" in m for m in masks), masks
    # only the reduced dimension: M = 40's padded rows are never stored
    assert all("keep = [[0 : i64, -1 : i64, 99 : i64]]" in m for m in masks), masks  # column < 100


def test_no_mask_where_blocks_fill_the_dimension():
    assert "loom.position_mask" not in _frontend_text("softmax_rows.py", M=64, N=128)


def test_block_sizes_divide_the_extent_padded_to_whole_tiles():
    source = load_kernel_file(EXAMPLES / "matmul.py")
    module = loom.lower(source.kernel, source.example_args({"M": 1000, "N": 64, "K": 64})).module
    assert block_domains(module, load_arch("wormhole_n150"))["tile_m"] == [32, 64, 128, 256, 512, 1024]


def test_mask_keeps_the_elements_inside_the_real_extent():
    """The simulator's Mask: a 2 x 2 tile block at element offset (32, 64) of a 40 x 100 tensor keeps rows
    below 40 and columns below 100, and fills the rest."""
    arch = load_arch("wormhole_n150")
    block = P.CB("x", "float32", rows=2, cols=2, slots=1)
    out = P.CB("y", "float32", rows=2, cols=2, slots=1)
    compute = (P.CbWait("x"), P.CbReserve("y"),
               P.Mask(P.Ref("x"), P.Ref("y"), -np.inf, 32, 64, ((-1, 0, 39), (0, -1, 99))),
               P.CbPush("y"), P.CbPop("x"))
    group = P.CoreGroup(((0, 0),), (block, out), (), (),
                        (P.CbReserve("x"), P.DramRead("a", (0, 0), "x", 2, 2), P.Barrier(), P.CbPush("x")),
                        compute,
                        (P.CbWait("y"), P.DramWrite("b", (0, 0), "y", 2, 2), P.Barrier(), P.CbPop("y")))
    program = P.Program(arch.name, (P.Tensor("a", (64, 64), "float32"), P.Tensor("b", (64, 64), "float32", "output")),
                        (group,))
    data = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    got = simulate(program, arch, functional=True, inputs={"a": data}).outputs["b"]
    rows, cols = np.arange(64)[:, None] + 32, np.arange(64)[None, :] + 64
    expected = np.where((rows < 40) & (cols < 100), data, -np.inf)
    np.testing.assert_array_equal(got, expected)


def test_tails_run_in_a_user_kernel(tmp_path):
    """A kernel outside the examples: a row sum over 1000 columns, `x[tile_m, :]`."""
    text = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def row_sum(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        out[tile_m] = torch.sum(torch.exp(x[tile_m, :].to(torch.float32)), dim=-1)
    return out


def inputs(M: int = 50, N: int = 1000):
    return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)),)


def reference(x):
    return torch.exp(x.float()).sum(-1)
'''
    outcome = run_kernel_text(tmp_path, text)
    assert outcome.check.ok, outcome.check


def test_block_sizes_need_not_divide_an_extent_no_reduction_masks():
    assert block_sizes(992, 32, exact=True) == [32, 992]  # 31 tiles
    assert block_sizes(992, 32) == [32, 64, 128, 256, 512, 992]
    assert block_sizes(1000, 32, exact=True) == [32, 64, 128, 256, 512, 1024]


def test_one_cores_share_of_an_axis_is_a_block_too():
    """TTNN's per-core blocks: 64 tiles over Blackhole's 13 columns and 10 rows are 5 and 7 tiles, neither a
    divisor nor a power of two; where blocks may reach past the tiles they are in the domain."""
    assert {160, 224} <= set(block_sizes(2048, 32, shares=(13, 10, 130)))
    assert {160, 224}.isdisjoint(block_sizes(2048, 32, exact=True, shares=(13, 10, 130)))
    source = load_kernel_file(EXAMPLES / "matmul.py")
    module = loom.lower(source.kernel, source.example_args({"M": 2048, "N": 2048, "K": 64})).module
    assert 224 in block_domains(module, load_arch("blackhole_p150"))["tile_m"]
    args = source.example_args({"M": 2048, "N": 640, "K": 64})
    compilation = compile_kernel(source.kernel, args, "blackhole_p150",
                                 block_sizes={"tile_m": 224, "tile_n": 160, "tile_k": 64})
    outcome = run(compilation, args, reference=source.reference)  # 2048 rows padded to 2240, 640 columns to 800
    assert outcome.check.ok, outcome.check


def test_a_masked_reduction_keeps_dividing_blocks():
    """softmax over 992 columns: the column block is masked before `amax`, so it must divide 992."""
    source = load_kernel_file(EXAMPLES / "softmax.py")
    module = loom.lower(source.kernel, source.example_args({"M": 64, "N": 992})).module
    domains = block_domains(module, load_arch("wormhole_n150"))
    assert domains["tile_n"] == [32, 992] and domains["tile_m"] == [32, 64]


def test_a_block_past_the_tiles_pads_the_tensor_and_moves_only_data():
    """992 x 992 x 992 at blocks of 128: the last block of each dimension reaches past the 31 tiles."""
    source = load_kernel_file(EXAMPLES / "matmul.py")
    shape = {"M": 992, "N": 992, "K": 992}
    args = source.example_args(shape)
    blocks = {"tile_m": 128, "tile_n": 128, "tile_k": 128}
    outcome = run(compile_kernel(source.kernel, args, "wormhole_n150", shape=shape, block_sizes=blocks), args,
                  reference=source.reference)
    assert outcome.check.ok, outcome.check
    x = next(t for t in outcome.program.tensors if t.name == "x")
    assert x.shape == (1024, 1024) and x.valid == (992, 992)
    assert outcome.sim.dram_read_bytes_by_tensor["x"] < 1024 * 1024 * 2 * 8  # 8 panels of x, 31 tiles each


def test_cores_sharing_a_multicast_split_an_axis_unevenly_on_padding():
    """N = 11 tiles over 8 cores that share x's multicast: every core runs two blocks of 32 columns in
    lockstep, the last five on padding; y and out are padded to 16 tiles and move only their 11."""
    source = load_kernel_file(EXAMPLES / "matmul.py")
    shape = {"M": 256, "N": 352, "K": 64}
    args = source.example_args(shape)
    compilation = compile_kernel(source.kernel, args, "wormhole_n150", shape=shape,
                                 block_sizes={"tile_m": 32, "tile_n": 32, "tile_k": 64}, top_k=0)

    def uneven(r) -> bool:
        shared = {a for t in r.model.candidate.transfers if t.receivers > 1 for a in t.access.spatial}
        n = r.model.candidate.axis("tile_n")
        return "tile_n" in shared and n.spatial == 8
    compilation.ranked = [next(r for r in compilation.ranked if uneven(r))]
    outcome = run(compilation, args, reference=source.reference)
    assert outcome.check.ok, outcome.check
    y = next(t for t in outcome.program.tensors if t.name == "y")
    assert y.shape == (64, 512) and y.valid == (64, 352)
