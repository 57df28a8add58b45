"""Each example kernel runs under HELION_INTERPRET=1 on CPU and matches its torch reference."""

from __future__ import annotations

import pytest
import torch

from loom.kernel_file import load_kernel_file
from tests.conftest import EXAMPLES, KERNELS


@pytest.mark.parametrize("name", KERNELS)
def test_example_matches_reference_in_interpret_mode(name, monkeypatch):
    monkeypatch.setenv("HELION_INTERPRET", "1")
    source = load_kernel_file(EXAMPLES / f"{name}.py")
    args = source.example_args()
    result = source.kernel(*args)
    expected = source.reference(*args)
    assert result.shape == expected.shape and result.dtype == expected.dtype
    torch.testing.assert_close(result.float(), expected.float(), atol=3e-2, rtol=3e-2)


def test_reference_is_not_trivially_equal_to_the_input():
    source = load_kernel_file(EXAMPLES / "matmul.py")
    x, y = source.example_args({"M": 64, "N": 32, "K": 32})
    assert not torch.allclose(source.reference(x, y).float()[:, :32], x.float()[:, :32])
