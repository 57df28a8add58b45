"""`x ** c` for any nonzero constant (issue 17's "pow by a constant"): whole powers by squaring, others as
exp(c * log(x)); and the check that compares them: a NaN or infinity matches only the same in the reference."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from loom.run import _compared
from tests.conftest import run_kernel_text

KERNEL = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def powers(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile(x.size()):
        v = x[tile_m, tile_n].to(torch.float32)
        out[tile_m, tile_n] = (v ** 5 - v ** -2 + v ** 2.5 + torch.abs(v) ** -0.75).to(out.dtype)
    return out


def inputs(M: int = 64, N: int = 96):
    return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)) + 0.5,)


def reference(x):
    v = x.float()
    return (v ** 5 - v ** -2 + v ** 2.5 + torch.abs(v) ** -0.75).to(x.dtype)
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150"])
def test_constant_powers_match_torch_nan_where_torch_has_nan(tmp_path, arch):
    args = (torch.randn(64, 96, generator=torch.Generator().manual_seed(0)) + 0.5,)
    assert torch.isnan(args[0] ** 2.5).any()  # negative bases: the NaNs must match too
    outcome = run_kernel_text(tmp_path, KERNEL, arch)
    assert outcome.check.ok, outcome.check


@pytest.mark.parametrize("power", [2.0, -0.5, 1.5, -3])
def test_a_power_given_as_a_scalar_argument_is_its_value(tmp_path, power):
    text = KERNEL.replace("def powers(x: torch.Tensor)", "def powers(x: torch.Tensor, p: float)").replace(
        "(v ** 5 - v ** -2 + v ** 2.5 + torch.abs(v) ** -0.75)", "(torch.abs(v) ** p)").replace(
        "def reference(x):", "def reference(x, p):").replace(
        "return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)) + 0.5,)",
        f"return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)) + 0.5, {power})")
    outcome = run_kernel_text(tmp_path, text)
    assert outcome.check.ok, outcome.check


def test_nan_and_infinity_match_only_themselves():
    ref = np.array([1.0, np.nan, np.inf, -np.inf], dtype=np.float32)
    assert _compared("t", ref.copy(), ref, torch.float32).ok
    for wrong in ([1.0, 0.0, np.inf, -np.inf], [1.0, np.nan, 1.0, -np.inf], [np.nan, np.nan, np.inf, -np.inf]):
        assert not _compared("t", np.array(wrong, dtype=np.float32), ref, torch.float32).ok
