"""Issue 17's examples that Loom compiles: each matches torch in loom.sim on every architecture, and runs
under Helion's CPU interpreter where that interpreter can run it."""

from __future__ import annotations

import pytest
import torch

from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run
from tests.conftest import EXAMPLES, ISSUE17_EXAMPLES


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
@pytest.mark.parametrize("name", sorted(ISSUE17_EXAMPLES))
def test_example_compiles_and_matches_torch(name, arch):
    shape, _ = ISSUE17_EXAMPLES[name]
    source = load_kernel_file(EXAMPLES / f"{name}.py")
    args = source.example_args(shape)
    compilation = compile_kernel(source.kernel, source.example_args(shape, meta=True), arch, shape=shape)
    outcome = run(compilation, args, reference=source.reference)
    assert outcome.check.ok, outcome.check


@pytest.mark.parametrize("name", sorted(n for n, (_, interpretable) in ISSUE17_EXAMPLES.items() if interpretable))
def test_example_matches_reference_in_interpret_mode(name, monkeypatch):
    monkeypatch.setenv("HELION_INTERPRET", "1")
    source = load_kernel_file(EXAMPLES / f"{name}.py")
    args = source.example_args(ISSUE17_EXAMPLES[name][0])
    result, expected = source.kernel(*args), source.reference(*args)
    results, expected = (result, expected) if isinstance(expected, tuple) else ((result,), (expected,))
    assert len(results) == len(expected)
    for got, want in zip(results, expected):
        assert got.shape == want.shape and got.dtype == want.dtype
        torch.testing.assert_close(got.float(), want.float(), atol=1e-4, rtol=1e-4)
