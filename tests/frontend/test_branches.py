"""Issue 17, part 4: `if`/`else` on kernel arguments and constants is folded when compiling: only the
branch taken is lowered, for each combination of the arguments."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import loom
from loom.ir.text import to_text
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run

BRANCH = Path(__file__).parent / "idiom_kernels" / "branch.py"


@pytest.mark.parametrize("beta, use_y", [(0.5, True), (0.0, True), (0.5, False), (0.0, False)])
def test_folded_branches_match_torch(beta, use_y):
    source = load_kernel_file(BRANCH)
    x, y = source.example_args()
    args = (x, y, beta, use_y)
    compilation = compile_kernel(source.kernel, args, "wormhole_n150", shape=source.size_names())

    def reference(x, y, beta, use_y):
        acc = x + y if use_y else x
        return acc * beta if beta != 0.0 else acc * 2.0

    outcome = run(compilation, args, reference=reference)
    assert outcome.check.ok, outcome.check


def test_only_the_branch_taken_is_lowered():
    source = load_kernel_file(BRANCH)
    x, y = source.example_args()
    text = to_text(loom.lower(source.kernel, (x, y, 0.5, False)).stages["frontend"])
    assert "%y" not in text.split("func.func")[1].split("{", 1)[1]  # y is never read
    assert "2.000000e+00" not in text  # the else branch's constant is not there
