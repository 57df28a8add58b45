"""Tile positions (issue 19 parts 4 and 5, issue 17's `tile.index`): masks from `tile.index` comparisons
become position masks the per-core programs compute from the block's offsets; grouped-query attention's
`h.begin // group` becomes a grid axis of K/V groups; a loop to an enclosing tile's end
(`hl.tile(0, tile_m.end)`) runs per-core trip counts, its cores balanced in block pairs."""

from __future__ import annotations

import dataclasses

import pytest

import loom
from loom.backend import program as P
from loom.errors import UnsupportedError
from loom.kernel_file import load_kernel_file
from loom.model import expr as E
from loom.pipeline import compile as compile_kernel
from loom.run import run
from loom.sim.compute import skips
from tests.conftest import ROOT, run_kernel_text

CAUSAL = ROOT / "examples" / "causal_attention.py"

_BAND = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def band(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile(x.size()):
        rows, cols = tile_m.index[:, None], tile_n.index[None, :]
        keep = (rows >= cols) & (rows - WIDTH < cols)
        out[tile_m, tile_n] = KERNEL_EXPR
    return out


def inputs(M: int = 200, N: int = 160):
    return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)),)


def reference(x):
    rows, cols = torch.arange(x.size(0))[:, None], torch.arange(x.size(1))[None, :]
    keep = (rows >= cols) & (rows - WIDTH < cols)
    return REFERENCE_EXPR
'''


@pytest.mark.parametrize("expr", [
    "torch.where(keep, x[tile_m, tile_n], 0.0)",  # a band: two half-planes
    "torch.where(rows < cols + 3, -1.0, x[tile_m, tile_n] * 2.0)",  # the number first: the mask negated
    "x[tile_m, tile_n].masked_fill(rows * 2 > cols, 5.0)",
    "x[tile_m, tile_n] * keep.to(torch.float32) + 1.0",  # a condition as data: 1.0 where it holds, else 0.0
    "x[tile_m, tile_n] * keep.to(torch.int32)",  # counted as integers, held as float 0 / 1
    "(x[tile_m, tile_n] * keep.float()).to(torch.bfloat16).to(torch.float32)",
])
def test_a_mask_from_tile_positions_matches_torch(tmp_path, expr):
    text = _BAND.replace("WIDTH", "40").replace("KERNEL_EXPR", expr)
    outcome = run_kernel_text(tmp_path, text.replace("REFERENCE_EXPR", expr.replace("x[tile_m, tile_n]", "x")))
    assert outcome.check.ok, outcome.check


def test_the_negation_of_a_conjunction_is_refused_with_the_users_line(tmp_path):
    text = _BAND.replace("WIDTH", "40").replace("KERNEL_EXPR", "torch.where(~keep, x[tile_m, tile_n], 0.0)")
    text = text.replace("REFERENCE_EXPR", "x")
    with pytest.raises(UnsupportedError, match="negation of a condition joined by `&`") as err:
        run_kernel_text(tmp_path, text)
    assert "torch.where(~keep" in str(err.value)


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
@pytest.mark.parametrize("sizes", [{"H": 4, "KV": 2, "L": 128}, {"H": 2, "KV": 1, "L": 200}])
def test_causal_grouped_query_attention_matches_torch(arch, sizes):
    if arch != "wormhole_n150" and sizes["L"] == 200:
        pytest.skip("one tail case is enough")
    source = load_kernel_file(CAUSAL)
    args = source.example_args(sizes)
    outcome = run(compile_kernel(source.kernel, args, arch), args, reference=source.reference)
    assert outcome.check.ok, outcome.check


def test_causal_attention_over_every_key_with_only_the_mask_matches_torch(tmp_path):
    """Helion's own causal form: the loop over all keys, the mask alone keeping the past."""
    text = CAUSAL.read_text().replace("hl.tile(0, tile_m.end)", "hl.tile(k.size(2))")
    outcome = run_kernel_text(tmp_path, text, sizes={"H": 2, "KV": 1, "L": 160})
    assert outcome.check.ok, outcome.check


def test_a_loop_to_the_query_blocks_end_runs_fewer_trips_and_balances_its_cores():
    """L = 2048 in blocks of 32 over ring32's 32 cores along tile_m: the solver balances them, each core
    running query blocks c and 63 - c, (c + 1) + (64 - c) = 65 key blocks, not 2 x 64 as a loop over every
    key would, nor up to 63 + 64 as a contiguous range would."""
    source = load_kernel_file(CAUSAL)
    args = source.example_args({"H": 1, "KV": 1, "L": 2048, "D": 32})
    compiled = compile_kernel(source.kernel, args, "ring32", block_sizes={"tile_m": 32, "tile_n": 32})
    assert compiled.schedule.knobs.get("balance_tile_m") == 1
    outcome = run(compiled, args, reference=source.reference)
    assert outcome.check.ok, outcome.check
    per_core = []
    for group in outcome.program.groups:
        pairs = [loop for loop in P.walk(group.compute) if isinstance(loop, P.Loop) and loop.var == "t_tile_m"]
        assert len(pairs) == 2 and all(loop.count == 1 for loop in pairs)  # one block from each end
        keys = [loop for pair in pairs for loop in P.walk(pair.body)
                if isinstance(loop, P.Loop) and isinstance(loop.count, P.Trips)]
        per_core.append(sum(loop.count.eval({"t_tile_m": 0}) for loop in keys))
    assert per_core == [65] * 32, per_core
    assert outcome.sim.compute_balance > 0.95  # the simulator's busy time per core agrees
    contiguous = dataclasses.replace(compiled.schedule, knobs={**compiled.schedule.knobs, "balance_tile_m": 0})
    unbalanced = run(compile_kernel(source.kernel, args, "ring32", schedule=contiguous), args)
    assert unbalanced.sim.compute_balance < 0.5  # core c: query blocks 2c and 2c + 1, 4c + 3 key blocks


def test_grouped_heads_become_a_grid_axis_of_groups():
    """`h.begin // group` is the grid's group axis, never a floor division the programs would need."""
    source = load_kernel_file(CAUSAL)
    text = str(loom.lower(source.kernel, source.example_args({"H": 8, "KV": 2}), stage="frontend").module)
    assert 'loom.grid = ["b", "h_group", "h_in_group", "tile_m"]' in text
    assert "floordiv" not in text
    assert "loom.position_mask" in text and "keep = [[1 : i64, -1 : i64, 0 : i64]]" in text  # row >= column
    assert 'loom.until = "tile_m"' in text  # the key loop ends at the query block's end


def test_a_core_masks_only_the_key_blocks_the_diagonal_crosses():
    """L = 256 in query blocks of 64 and key blocks of 32: query block i runs 2 (i + 1) key blocks and
    masks only its last 2 (8 masks in all, not 20); the others are kept whole and skipped, in the
    simulator and in the model (the mask priced r = 2 times per query block, outside the key loop)."""
    source = load_kernel_file(CAUSAL)
    args = source.example_args({"H": 1, "KV": 1, "L": 256, "D": 32})
    compiled = compile_kernel(source.kernel, args, "ring32", block_sizes={"tile_m": 64, "tile_n": 32})
    outcome = run(compiled, args, reference=source.reference, trace=True)
    assert outcome.check.ok, outcome.check
    masks = [r for r in outcome.sim.trace.records if r[0] == "X" and r[3] == "Mask"]
    assert len(masks) == 8
    best = compiled.ranked[0]
    total = best.model.latency.total
    diagonal = [t for t in E.walk(total) if t.label == "position masks on the diagonal"]
    assert len(diagonal) == 1 and E.evaluate(diagonal[0], best.values) > 0
    mask_prices = lambda e: [t for t in E.walk(e) if "position_mask" in (t.label or "")]  # noqa: E731
    assert mask_prices(total) and mask_prices(total) == mask_prices(diagonal[0])  # none inside the key loop


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
def test_a_key_block_longer_than_the_query_block_runs_and_masks_each_last_one(arch):
    """L = 256 in query blocks of 32 and key blocks of 128 (Qwen3-VL's Q128/K512 in small): query block i
    runs ceil((i + 1) / 4) key blocks, the last reaching past its queries; each masks only that last one
    (8 masks in all), and the result matches torch."""
    source = load_kernel_file(CAUSAL)
    args = source.example_args({"H": 1, "KV": 1, "L": 256, "D": 32})
    compiled = compile_kernel(source.kernel, args, arch, block_sizes={"tile_m": 32, "tile_n": 128})
    outcome = run(compiled, args, reference=source.reference, trace=True)
    assert outcome.check.ok, outcome.check
    assert len([r for r in outcome.sim.trace.records if r[0] == "X" and r[3] == "Mask"]) == 8


@pytest.mark.parametrize("row_start, keep, whole", [
    (64, (1, -1, 0), True),    # rows 64..95 >= columns 32..63 everywhere
    (64, (1, -1, -1), True),   # and > too (64 > 63)
    (32, (1, -1, 0), False),   # rows 32..63 against columns 32..63: the diagonal block
    (64, (-1, 1, 0), False),   # column >= row nowhere
])
def test_an_in_place_mask_on_a_block_it_keeps_whole_is_skipped(row_start, keep, whole):
    ref = P.Ref("s")
    mask = P.Mask(ref, ref, float("-inf"), row_start=row_start, col_start=32, keep=(keep,))
    assert skips(mask, {}, 1, 1, (32, 32)) is whole
    assert not skips(dataclasses.replace(mask, dst=P.Ref("t")), {}, 1, 1, (32, 32))  # a copy is still a copy
