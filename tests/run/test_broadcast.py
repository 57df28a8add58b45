"""Binary ops broadcast their second operand by row, column or scalar (issue 17); a commutative op with the
broadcast operand first (`w[None, :] * x`) is swapped rather than refused."""

from __future__ import annotations

import pytest
from xdsl.ir.affine import AffineMap

from loom.backend.split import _bcast
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run

OUT = AffineMap.identity(3)  # (b, m, n) -> (b, m, n)


@pytest.mark.parametrize("dims, expected", [((0, 1, 2), "none"), ((0, 1), "col"), ((0, 2), "row"), ((0,), "scalar")])
def test_second_operand_broadcast_is_read_from_its_indexing_map(dims, expected):
    operand = AffineMap.from_callable(lambda b, m, n: tuple((b, m, n)[d] for d in dims))
    assert _bcast(operand, OUT) == expected


KERNEL = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def scale_columns(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row = x[tile_m, :]
        out[tile_m, :] = w[None, :] * row + row.sum(-1, keepdim=True)
    return out


def inputs(M: int = 64, N: int = 128):
    return torch.randn(M, N), torch.randn(N)


def reference(x, w):
    return w[None, :] * x + x.sum(-1, keepdim=True)
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "ring32"])
def test_row_vector_first_and_keepdim_column_match_torch(tmp_path, arch):
    path = tmp_path / "scale_columns.py"
    path.write_text(KERNEL)
    source = load_kernel_file(path)
    args = source.example_args()
    outcome = run(compile_kernel(source.kernel, args, arch), args, reference=source.reference)
    assert {t.name: t.vector for t in outcome.program.tensors}["w"] == "row"
    assert outcome.check.ok, outcome.check
