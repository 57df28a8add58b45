"""Issue 17, parts 4 and 6: what is known when compiling is used. `if`/`else` on kernel arguments and
constants is folded (only the branch taken is lowered, for each combination of the arguments), and a
static_shapes=False kernel is compiled for the example's sizes."""

from __future__ import annotations

from pathlib import Path

import pytest

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
        return acc * beta + y * 3.0 if beta != 0.0 else acc * 2.0 + y * (1.0 - beta)

    outcome = run(compilation, args, reference=reference)
    assert outcome.check.ok, outcome.check


def test_only_the_branch_taken_is_lowered():
    source = load_kernel_file(BRANCH)
    x, y = source.example_args()
    text = to_text(loom.lower(source.kernel, (x, y, 0.5, False)).stages["frontend"])
    assert "2.000000e+00" not in text and "3.000000e+00" in text  # only the if branch's constants


def test_dynamic_shapes_kernel_compiles_for_the_example_sizes_with_a_note(capsys):
    source = load_kernel_file(Path(__file__).parent / "idiom_kernels" / "dynamic_shapes.py")
    args = source.example_args()
    compilation = compile_kernel(source.kernel, args, "wormhole_n150", shape=source.size_names())
    assert run(compilation, args, reference=source.reference).check.ok
    assert "static_shapes=False" in capsys.readouterr().err
