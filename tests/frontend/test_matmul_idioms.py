"""Issue 17, part 2: the matmul idioms Helion users write (`torch.addmm`, `torch.baddbmm`, `hl.dot(acc=)`)
are the same accumulating matmul as `acc + a @ b`; what cannot be lowered yet is refused at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

import loom
from loom.errors import UnsupportedError
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


@pytest.mark.parametrize("path", [KERNELS / "dot_acc.py", KERNELS / "addmm_residual.py", EXAMPLES / "bmm.py"])
def test_idiom_is_one_accumulating_matmul_whose_loop_combines_by_sum(path):
    source = load_kernel_file(path)
    text = to_text(loom.lower(source.kernel, source.example_args(meta=True)).stages["frontend"])
    assert text.count("linalg.matmul") == 1 and 'loom.combine = "sum"' in text


def test_baddbmm_on_3d_tiles_is_refused_at_its_line():
    path = KERNELS / "baddbmm_3d.py"
    source = load_kernel_file(path)
    with pytest.raises(UnsupportedError, match=r"leading \(batch\) dimension") as info:
        loom.lower(source.kernel, source.example_args(meta=True))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "# LINE" in text)
    assert info.value.location.line == line and "baddbmm" in str(info.value)
