"""A tile that spans a whole leading dimension (`q[tile_b, :, tile_t, :]`: every head of a batch and
block of rows) moves one 2-D block per head, and an operand that lacks that dimension
(`c[:, None, :, :]`, or a kept row maximum of it) stands once per head down the tile's rows. Before,
the block's reads covered the first head only and the other heads computed on whatever the buffer
held."""

from __future__ import annotations

import pytest
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from loom.backend import program as P
from loom.backend.compute_instructions import _check_constant_indices, _repeat
from loom.errors import UnsupportedError
from tests.conftest import run_kernel_text

KERNEL = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def per_head(q: torch.Tensor, cos: torch.Tensor) -> torch.Tensor:
    batch, heads, seq, dim = q.size()
    out = torch.empty_like(q)
    for tile_b, tile_t in hl.tile([batch, seq]):
        c = cos[tile_b, tile_t, :].to(torch.float32)
        x = q[tile_b, :, tile_t, :].to(torch.float32)
        out[tile_b, :, tile_t, :] = (x * c[:, None, :, :] + c[:, None, :, :]).to(out.dtype)
    return out


def inputs(B: int = 2, H: int = 3, S: int = 64, D: int = 64):
    g = torch.Generator().manual_seed(0)
    return torch.randn(B, H, S, D, generator=g).half(), torch.randn(B, S, D, generator=g).half()


def reference(q, cos):
    x, c = q.float(), cos.float()[:, None]
    return (x * c + c).to(q.dtype)
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150"])
def test_every_head_of_a_whole_leading_dimension_matches_torch(tmp_path, arch):
    outcome = run_kernel_text(tmp_path, KERNEL, arch)
    assert outcome.check.ok, outcome.check
    group = outcome.program.groups[0]
    reads = [i for kind in P.ROLES for i in _walk(group.role(kind)) if isinstance(i, P.DramRead) and i.tensor == "q"]
    assert {int(r.index[1].const) for r in reads} == {0, 1, 2}  # one block per head


def _walk(instrs):
    for i in instrs:
        yield i
        yield from _walk(getattr(i, "body", ()))


OUT = AffineMap.identity(3)  # (h, m, n)


def test_an_operand_lacking_the_leading_dimension_repeats_once_per_position():
    assert _repeat(AffineMap.from_callable(lambda h, m, n: (m, n)), OUT, (4, 64, 64)) == 4
    assert _repeat(AffineMap.from_callable(lambda h, m, n: (h, m, n)), OUT, (4, 64, 64)) == 1


def test_a_reduction_of_a_tile_over_several_heads_is_refused_at_its_line(tmp_path):
    text = KERNEL.replace("+ c[:, None, :, :])", "+ x.amax(-1, keepdim=True))")
    with pytest.raises(UnsupportedError, match=r"kernel.py:14: .*`aten.amax.default` of a tile that spans a leading"):
        run_kernel_text(tmp_path, text)


def test_a_kept_reduction_broadcast_over_the_heads_is_a_column_per_head(tmp_path):
    """`c.amax(-1, keepdim=True)[:, None, :, :]`: the subscript moves the kept unit dimension with its
    source dimension (it was read as one value of the row before: a scalar broadcast)."""
    text = KERNEL.replace("+ c[:, None, :, :])", "+ c.amax(-1, keepdim=True)[:, None, :, :])").replace(
        "return (x * c + c).to(q.dtype)", "return (x * c + c.amax(-1, keepdim=True)).to(q.dtype)")
    outcome = run_kernel_text(tmp_path, text)
    assert outcome.check.ok, outcome.check
    adds = [i for i in _walk(outcome.program.groups[0].compute) if isinstance(i, P.Binary) and i.op == "add"]
    assert [(i.bcast, i.repeat) for i in adds] == [("col", 3)]


def test_a_broadcast_reading_one_element_of_a_longer_dimension_is_refused():
    with pytest.raises(UnsupportedError, match="first element of a dimension of 64 elements"):
        _check_constant_indices(AffineMap(2, 0, (AffineConstantExpr(0), AffineDimExpr(1))), (64, 64))
    _check_constant_indices(AffineMap(2, 0, (AffineConstantExpr(0), AffineDimExpr(1))), (1, 64))


def test_a_broadcast_inside_a_leading_dimension_of_several_elements_is_refused():
    out = AffineMap.identity(4)  # (b, h, m, n): b of 2, broadcast over h inside it
    with pytest.raises(UnsupportedError, match="outermost"):
        _repeat(AffineMap.from_callable(lambda b, h, m, n: (b, m, n)), out, (2, 4, 64, 64))


def test_when_every_head_overflows_l1_the_refusal_names_the_whole_block(tmp_path):
    from loom.schedule import NoScheduleError

    with pytest.raises(NoScheduleError, match=r"the blocks at .*kernel.py:13 \(64 positions\).* hold every position"):
        run_kernel_text(tmp_path, KERNEL, "wormhole_n150", {"B": 1, "H": 64, "S": 64, "D": 256})
