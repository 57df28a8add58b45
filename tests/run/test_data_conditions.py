"""Conditions computed from data: comparisons are 0 / 1 tiles, and `torch.where(cond, a, b)` is
select(cond, a) + select_not(cond, b) (exact: one of the two is 0.0), on every architecture."""

from __future__ import annotations

import pytest

from loom.backend import program as P
from tests.conftest import run_kernel_text

_KERNEL = '''
import torch, helion, helion.language as hl

@helion.kernel(static_shapes=True)
def k(x: torch.Tensor, y: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile(x.size()):
        a, b, r = x[tile_m, tile_n], y[tile_m, tile_n], m[tile_m]
        out[tile_m, tile_n] = EXPR
    return out

def inputs(M: int = 64, N: int = 96, dtype: torch.dtype = torch.float32):
    g = torch.Generator().manual_seed(0)
    return tuple(torch.randn(*s, generator=g).to(dtype) for s in ((M, N), (M, N), (M,)))

def reference(x, y, m):
    a, b, r = x, y, m
    return EXPR
'''

CASES = {
    "leaky_relu": "torch.where(a > 0, a, 0.1 * a)",
    "larger_of_two": "torch.where(a > b, a, b)",
    "masked_fill": "a.masked_fill(b <= 0.25, -1.5)",
    "indicator_times_data": "(a >= b).float() * b",
    "broadcast_first": "torch.where(r[:, None] > a, r[:, None] - a, 0.0)",
    "not_equal": "torch.where(a != b, 1.0, 2.0)",
    "logic": "torch.where(~(a > 0) & (b < 0.5) | (a > 1.0), a, b)",
    "clamp_by_tiles": "torch.clamp(a, min=b, max=b + 1.0)",
}


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_condition_on_data_selects_as_torch_does(tmp_path, name, arch):
    if arch != "wormhole_n150" and name not in ("leaky_relu", "broadcast_first"):
        pytest.skip("two cases are enough on the other architectures")
    outcome = run_kernel_text(tmp_path, _KERNEL.replace("EXPR", CASES[name]), arch)
    assert outcome.check.ok and outcome.check.max_abs_error <= 1e-6, outcome.check


def test_a_where_on_bf16_tiles_selects_without_rounding_twice(tmp_path):
    text = _KERNEL.replace("EXPR", CASES["leaky_relu"]).replace("dtype: torch.dtype = torch.float32",
                                                                 "dtype: torch.dtype = torch.bfloat16")
    outcome = run_kernel_text(tmp_path, text)
    assert outcome.check.ok and outcome.check.max_abs_error == 0, outcome.check


def test_where_is_two_selects_and_an_add_and_a_zero_branch_is_left_out(tmp_path):
    full = run_kernel_text(tmp_path, _KERNEL.replace("EXPR", CASES["larger_of_two"]))
    ops = [i.op for g in full.program.groups[:1] for i in P.walk(g.compute) if isinstance(i, P.Binary)]
    assert ops == ["gt", "select", "select_not", "add"]
    half = run_kernel_text(tmp_path, _KERNEL.replace("EXPR", "torch.where(a > b, a, 0.0)"))
    assert [i.op for i in P.walk(half.program.groups[0].compute) if isinstance(i, P.Binary)] == ["gt", "select"]
