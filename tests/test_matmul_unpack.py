"""A matmul's unpack cost follows TT-Metal's matmul unpacker: one operand stays in its source
register, the other is streamed once per tile product, whatever the subblock's shape."""

from __future__ import annotations

import pytest

from loom import cost
from loom.arch import load_arch
from loom.model import expr as E

BF16 = ("bfloat16", "bfloat16", "bfloat16")


@pytest.fixture(scope="module")
def wh():
    return load_arch("wormhole_n150")


@pytest.mark.parametrize("subblock, a_tiles, b_tiles", [
    ((1, 8), 16 * 16 // 8, 16 * 16),   # w >= h: a reused (once per subblock), b streamed
    ((2, 4), 2 * 16 * 16 // 8, 16 * 16),
    ((4, 2), 16 * 16, 2 * 16 * 16 // 8),  # w < h: b reused, a streamed
    ((8, 1), 16 * 16, 16 * 16 // 8),
    ((4, 4), 4 * 16, 16 * 16),          # square: a reused (w >= h, as the unpacker decides)
])
def test_the_streamed_operand_is_unpacked_once_per_tile_product(wh, subblock, a_tiles, b_tiles):
    u = cost.unpack_cycles(wh, "bfloat16")
    stages = cost.matmul(wh, 16, 16, 4, BF16, subblock=subblock)
    assert stages.unpack == (a_tiles * u, b_tiles * u)
    assert max(stages.unpack) == 16 * 16 * u  # no subblock shape beats one unpack per product


def test_one_piece_reuses_the_shorter_side(wh):
    u = cost.unpack_cycles(wh, "bfloat16")
    assert cost.matmul(wh, 2, 6, 3, BF16).unpack == (2 * u, 12 * u)
    assert cost.matmul(wh, 6, 2, 3, BF16).unpack == (12 * u, 2 * u)


def test_a_symbolic_block_streams_the_dearer_operand(wh):
    m, n = E.Var("m"), E.Var("n")
    stages = cost.matmul(wh, m, n, 2, ("bfp8_b", "bfloat16", "bfloat16"))
    env = {"m": 4, "n": 2}
    a_cycles, b_cycles = (E.evaluate(E.as_expr(x), env) for x in stages.unpack)
    assert b_cycles == 4 * 2 * cost.unpack_cycles(wh, "bfloat16")  # bf16 dearer than bfp8: streamed
    assert a_cycles == 4 * cost.unpack_cycles(wh, "bfp8_b")  # a kept: each of its m tiles once
