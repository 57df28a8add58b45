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


SCALE = 3.0


def _global_scaled(acc, tile):
    return SCALE * acc


@pytest.mark.parametrize("form", ["closure", "global"])
def test_numbers_an_epilogue_closes_over_are_known_when_compiling(form):
    """helion's addmm_autograd passes `lambda acc, tile: alpha * acc + beta * bias[tile]` with `alpha`, `beta`
    closed over (Helion names them `epilogue.__closure__[i]`), or an epilogue reads its own module's globals
    (Helion imports that module as `_global_source0`): both were refused as scalars not known when compiling."""
    import torch

    x, y, bias = torch.randn(128, 64), torch.randn(64, 96), torch.randn(128, 96)
    alpha, beta = 2.0, 0.5

    def closure(acc, tile):
        return alpha * acc + beta * bias[tile[0], tile[1]]

    epilogue, expected = {"closure": (closure, alpha * (x @ y) + beta * bias),
                          "global": (_global_scaled, SCALE * (x @ y))}[form]
    kernel = load_kernel_file(Path(__file__).parent / "idiom_kernels" / "matmul_epilogue.py").kernel
    args = (x, y, epilogue)
    outcome = run(compile_kernel(kernel, args, "wormhole_n150"), args, reference=lambda *_: expected)
    assert outcome.check.ok, outcome.check
