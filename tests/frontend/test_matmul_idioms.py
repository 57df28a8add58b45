"""Issue 17, part 2: the matmul idioms Helion users write (`torch.addmm`, `torch.baddbmm`, `hl.dot(acc=)`)
are the same accumulating matmul as `acc + a @ b`, on 2-D tiles or on the 3-D tiles of a batch tile."""

from __future__ import annotations

from pathlib import Path

import pytest

import loom
from loom.ir.text import to_text
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run
from tests.conftest import EXAMPLES

KERNELS = Path(__file__).parent / "idiom_kernels"


@pytest.mark.parametrize("name", ["dot_acc", "addmm_residual", "host_reshape"])
def test_idiom_compiles_and_matches_torch(name):
    source = load_kernel_file(KERNELS / f"{name}.py")
    compilation = compile_kernel(source.kernel, source.example_args(meta=True), "wormhole_n150",
                                 shape=source.size_names())
    outcome = run(compilation, source.example_args(), reference=source.reference)
    assert outcome.check.ok, outcome.check


@pytest.mark.parametrize("path", [KERNELS / "dot_acc.py", KERNELS / "addmm_residual.py", EXAMPLES / "bmm.py",
                                  KERNELS / "baddbmm_batch_tile.py"])
def test_idiom_is_one_accumulating_matmul_whose_loop_combines_by_sum(path):
    source = load_kernel_file(path)
    text = to_text(loom.lower(source.kernel, source.example_args(meta=True)).stages["frontend"])
    assert text.count("linalg.matmul") == 1 and 'loom.combine = "sum"' in text
