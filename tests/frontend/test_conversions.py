"""Format conversions join the ops next to them (`loom.frontend.conversions`): a widened load is read by
its consumers as it is, a rounded result is packed by the op that computes it; a conversion feeding a
matmul or with other readers of its input stays an op of its own. The values do not change."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.linalg.ops import GenericOp, MatmulOp

from loom.frontend import conversions
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.pipeline import lower
from loom.run import run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _body(op: GenericOp) -> list[str]:
    return [o.name for o in op.body.block.ops if o.name != "linalg.yield"]


def _generics(path: Path, **sizes) -> list[GenericOp]:
    source = load_kernel_file(path)
    module = lower(source.kernel, source.example_args(**sizes), stage="frontend").module
    return [op for op in module.walk() if isinstance(op, GenericOp)]


def test_layer_norm_has_no_conversion_ops():
    generics = _generics(EXAMPLES / "layer_norm.py")
    assert not [g for g in generics if _body(g) in (["arith.extf"], ["arith.truncf"])]
    # the loaded row is read in bf16 by the mean and by the centring, each widening it in its body
    readers = [g for g in generics if str(g.inputs[0].type.element_type) == "bf16"]
    assert [_body(g)[0] for g in readers][:2] == ["arith.extf", "arith.extf"]
    # the last op (`... + bias`) packs bf16 itself
    last = generics[-1]
    assert _body(last) == ["arith.extf", "arith.addf", "arith.truncf"]
    assert str(last.res[0].type.element_type) == "bf16"


def test_a_conversion_read_by_a_matmul_stays():
    generics = _generics(EXAMPLES / "flash_attention.py")
    source = load_kernel_file(EXAMPLES / "flash_attention.py")
    module = lower(source.kernel, source.example_args(), stage="frontend").module
    feeding_matmuls = {m.inputs[0].owner for m in module.walk() if isinstance(m, MatmulOp)}
    # p.to(bf16) feeds P @ V (and p is also summed, so the exp keeps its fp32 result)
    assert any(isinstance(g, GenericOp) and _body(g) == ["arith.truncf"] for g in feeding_matmuls)
    assert any(_body(g) == ["math.exp"] for g in generics)


@pytest.mark.parametrize("name, blocks", [("layer_norm.py", {"tile_m": 32}), ("rope.py", {"tile_s": 32})])
def test_folding_leaves_the_values_bit_for_bit(name, blocks, monkeypatch):
    source = load_kernel_file(EXAMPLES / name)
    args = source.example_args()

    def outputs():
        compilation = compile_kernel(source.kernel, args, "wormhole_n150", block_sizes=blocks, jobs=1)
        sim = run(compilation, args, functional=True).sim
        return sim.outputs, sim.kernel_cycles

    folded, fewer = outputs()
    monkeypatch.setattr(conversions, "fold_conversions", lambda module: None)
    unfolded, more = outputs()
    assert fewer < more  # the conversions were ops of their own before
    assert folded.keys() == unfolded.keys()
    for key in folded:
        assert np.array_equal(folded[key], unfolded[key], equal_nan=True), key


TWO_ROUNDINGS = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def two_roundings(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=torch.bfloat16, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = (x[tile_m, tile_n] * 1000.0).to(torch.float16).to(torch.bfloat16)
    return out


def inputs():
    return (torch.randn(64, 128, generator=torch.Generator().manual_seed(0)) * 50,)


def reference(x):
    return (x * 1000.0).to(torch.float16).to(torch.bfloat16)
'''


def test_a_value_rounded_twice_keeps_both_roundings(tmp_path):
    """float16 overflows to inf past 65504 and rounds; only the first conversion joins the product."""
    from tests.conftest import run_kernel_text

    outcome = run_kernel_text(tmp_path, TWO_ROUNDINGS)
    assert outcome.check.ok, outcome.check
