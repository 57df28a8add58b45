"""Arguments of types the chip has no tile format for Loom's programs to use: fp8 held as bfloat16 tiles,
8- and 16-bit integers as int32 tiles (`loom.frontend.tiles.HELD_AS`); both carry every value exactly,
so Helion's fp8 and bf16 x int16 GEMMs compute what torch does. Inside the loop those types are refused
at the user's line: a cast to them would round to a format the program does not hold."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from loom.errors import UnsupportedError
from loom.report import print_compile_report
from tests.conftest import run_kernel_text

_GEMM = '''
import torch, helion, helion.language as hl

@helion.kernel(static_shapes=True)
def mixed_gemm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    _, n = w.size()
    out = torch.empty([m, n], dtype=torch.bfloat16, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = hl.dot(x[tile_m, tile_k], w[tile_k, tile_n].to(torch.bfloat16), acc=acc)
        out[tile_m, tile_n] = acc.to(torch.bfloat16)
    return out

def inputs(M: int = 64, N: int = 96, K: int = 128):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(M, K, generator=g).to(X_TYPE), W_VALUES)

def reference(x, w):
    return (x.float() @ w.to(torch.bfloat16).float()).to(torch.bfloat16)
'''
_FP8 = "torch.randn(K, N, generator=g).to(torch.float8_e4m3fn)"
_INT16 = "torch.randint(-300, 300, (K, N), generator=g, dtype=torch.int16)"


@pytest.mark.parametrize("x_type, w_values", [("torch.float8_e4m3fn", _FP8), ("torch.bfloat16", _INT16),
                                              ("torch.float8_e5m2", "torch.randint(-8, 8, (K, N), generator=g, "
                                                                    "dtype=torch.int8)")])
def test_gemms_on_held_types_match_torch(tmp_path, x_type, w_values):
    outcome = run_kernel_text(tmp_path, _GEMM.replace("X_TYPE", x_type).replace("W_VALUES", w_values))
    assert outcome.check.ok, outcome.check
    console = Console(file=io.StringIO(), width=200)
    print_compile_report(outcome.compilation, console)
    held = [line for line in console.file.getvalue().splitlines() if line.lstrip().startswith("held")]
    assert len(held) == (2 if x_type != "torch.bfloat16" else 1), held
    assert all("tiles (converted by the host" in line for line in held)


def test_a_cast_to_a_narrow_integer_in_the_loop_is_refused_at_its_line(tmp_path):
    """fp8 casts in the loop round to the fp8 values (tests/run/test_flat_heads_and_fp8.py); an int8 cast would
    wrap in a format the program does not hold."""
    cast = "out[tile_m, tile_n] = acc.to(torch.int8).to(torch.bfloat16)"
    text = _GEMM.replace("X_TYPE", "torch.bfloat16").replace("W_VALUES", _FP8).replace(
        "out[tile_m, tile_n] = acc.to(torch.bfloat16)", cast)
    with pytest.raises(UnsupportedError, match="int8 is not supported in the loop") as err:
        run_kernel_text(tmp_path, text)
    assert err.value.location is not None and "acc.to(torch.int8)" in err.value.location.code
