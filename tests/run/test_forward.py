"""Forwarding down a line of cores (`forward_row` / `forward_column`): offered only where a multicast
does not dominate it, and the chain's programs match torch while reading the block once per line."""

from __future__ import annotations

from math import prod

import pytest

import loom
from loom.arch import load_arch
from loom.kernel_file import load_kernel_file
from loom.mapping.candidates import enumerate_candidates
from loom.pipeline import compile as compile_kernel
from loom.run import run
from tests.conftest import EXAMPLES

GEMM = load_kernel_file(EXAMPLES / "matmul.py")
SHAPE = {"M": 256, "N": 256, "K": 256}


@pytest.mark.parametrize("arch, longest", [("wormhole_n150", 2), ("blackhole_p150", 3)])
def test_forwarding_is_offered_only_where_no_multicast_dominates_it(arch, longest):
    """A chain of g moves the block g - 1 times at the 1 -> 1 rate: WH (29 vs 15 B/cycle) keeps
    chains of 2, BH (60 vs 24) chains of up to 3."""
    target = load_arch(arch)
    module = loom.lower(GEMM.kernel, GEMM.example_args(SHAPE, meta=True), target).module
    chains = [t for c in enumerate_candidates(module, target).candidates for t in c.transfers
              if t.mode.startswith("forward")]
    assert chains and max(prod(t.group) for t in chains) <= longest
    lines = [t for c in enumerate_candidates(module, target).candidates for t in c.transfers
             if t.mode in ("row", "column")]
    assert max(prod(t.group) for t in lines) > longest  # longer lines exist, and only multicast them
    assert all(sum(g > 1 for g in t.group) == 1 for t in chains)  # one line, never a rectangle
    portable = enumerate_candidates(module, target, portable=True).candidates
    assert not any(t.mode.startswith("forward") for c in portable for t in c.transfers)


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150"])
def test_forwarded_operand_matches_torch_and_is_read_once_per_line(arch):
    args = GEMM.example_args(SHAPE)
    sizes = {"tile_m": 32, "tile_n": 32, "tile_k": 64}
    compilation = compile_kernel(GEMM.kernel, args, arch, shape=SHAPE, block_sizes=sizes, top_k=0)
    by_name = {r.name: r for r in compilation.ranked}
    chained = next(r for r in compilation.ranked if any(t.mode.startswith("forward") and t.tensor == "x"
                                                        for t in r.model.candidate.transfers))
    twin = by_name[chained.name.replace("x:forward_row", "x:unicast").replace("x:forward_column", "x:unicast")]
    reads = {}
    for ranked in (chained, twin):
        compilation.ranked = [ranked]
        outcome = run(compilation, args, reference=GEMM.reference)
        assert outcome.check.ok, (ranked.name, outcome.check)
        reads[ranked.name] = outcome.sim.dram_read_bytes_by_tensor["x"]
    group = prod(next(t for t in chained.model.candidate.transfers if t.tensor == "x").group)
    assert reads[chained.name] * group == pytest.approx(reads[twin.name])
