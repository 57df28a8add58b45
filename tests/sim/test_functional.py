"""Functional mode: programs carry real data and match a torch reference."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from loom.arch import load_arch
from loom.backend import (
    CB,
    Barrier,
    Binary,
    Buffer,
    CbPop,
    CbPush,
    CbReserve,
    CbWait,
    CoreGroup,
    DramRead,
    DramWrite,
    Program,
    ProgramError,
    Ref,
    Tensor,
    Transpose,
    Unary,
)
from loom.sim import simulate
from loom.sim.data import quantize, round_bf16
from loom.sim.gemm_workload import gemm_grid_config, gemm_program, ttnn_default_config
from loom.sim.workloads import softmax_program


def test_bf16_rounding_matches_torch() -> None:
    x = torch.randn(4096) * 100
    assert np.array_equal(round_bf16(x.numpy()), x.bfloat16().float().numpy())
    q = quantize(np.linspace(-3, 3, 64, dtype=np.float32), "bfp8_b")
    assert np.abs(q - np.linspace(-3, 3, 64)).max() < 3 / 64  # 7 mantissa bits under a shared exponent


@pytest.mark.parametrize(("arch_name", "grid", "out_block"), [
    ("wormhole_n150", (4, 2), None), ("wormhole_n150", (2, 2), (2, 1)), ("blackhole_p150", (3, 2), None),
    ("ring32", (4, 1), (4, 3)),
])
def test_gemm_workload_matches_torch(arch_name: str, grid: tuple[int, int], out_block) -> None:
    arch = load_arch(arch_name)
    M, K, N = 256, 384, 384
    cfg = gemm_grid_config(arch, M, K, N, grid, in0_block_w=2, out_block=out_block)
    torch.manual_seed(0)
    a, b = torch.randn(M, K), torch.randn(K, N)
    r = simulate(gemm_program(arch, cfg), arch, functional=True, inputs={"A": a, "B": b})
    ref = (a.bfloat16().float() @ b.bfloat16().float()).bfloat16().float().numpy()
    np.testing.assert_allclose(r.outputs["C"], ref, rtol=2e-2, atol=0.3)
    assert set(r.outputs) == {"C"}


def test_ttnn_default_gemm_matches_torch_bfp8() -> None:
    arch = load_arch("wormhole_n150")
    cfg = ttnn_default_config(arch, 256, 512, 256, "bfp8_b")
    torch.manual_seed(1)
    a, b = torch.randn(256, 512), torch.randn(512, 256)
    r = simulate(gemm_program(arch, cfg), arch, functional=True, inputs={"A": a, "B": b})
    qa, qb = quantize(a.numpy(), "bfp8_b"), quantize(b.numpy(), "bfp8_b")
    ref = qa @ qb
    err = np.abs(r.outputs["C"] - ref).max() / np.abs(ref).max()
    assert err < 0.02


@pytest.mark.parametrize("arch_name", ["wormhole_n150", "ring32"])
def test_softmax_reduction_program_matches_torch(arch_name: str) -> None:
    arch = load_arch(arch_name)
    torch.manual_seed(2)
    x = torch.randn(256, 128) * 3
    r = simulate(softmax_program(arch, 256, 128, cores=4), arch, functional=True, inputs={"X": x})
    ref = torch.softmax(x.bfloat16().float(), dim=1).numpy()
    np.testing.assert_allclose(r.outputs["Y"], ref, rtol=1e-2, atol=1e-3)


def test_transpose_add_and_dtype_conversion(wh) -> None:
    """Y = (X^T + X) / 2 in float32, from a bf16 input."""
    group = CoreGroup(
        cores=((1, 1),), cbs=(CB("x", "bfloat16", 2, 2, 1), CB("y", "float32", 2, 2, 1)),
        buffers=(Buffer("t", "float32", 2, 2),),
        reader=(CbReserve("x"), DramRead("X", (0, 0), "x", 2, 2), Barrier(), CbPush("x")),
        compute=(CbWait("x"), Transpose(Ref("x"), Ref("t")), Binary("add", Ref("t"), Ref("x"), Ref("t")),
                 CbReserve("y"), Unary("scale", Ref("t"), Ref("y"), 0.5), CbPop("x"), CbPush("y")),
        writer=(CbWait("y"), DramWrite("Y", (0, 0), "y", 2, 2), Barrier(), CbPop("y")))
    prog = Program(wh.name, (Tensor("X", (64, 64), "bfloat16"), Tensor("Y", (64, 64), "float32", "output")),
                   (group,), "tadd")
    x = torch.randn(64, 64)
    r = simulate(prog, wh, functional=True, inputs={"X": x})
    xb = x.bfloat16().float().numpy()
    np.testing.assert_allclose(r.outputs["Y"], (xb.T + xb) * 0.5, rtol=1e-6)


def test_missing_wait_is_reported_even_in_timing_mode(wh) -> None:
    group = CoreGroup(cores=((0, 0),), cbs=(CB("x", "bfloat16"), CB("y", "bfloat16")),
                      compute=(CbReserve("y"), Unary("exp", Ref("x"), Ref("y")), CbPush("y")))
    with pytest.raises(ProgramError, match=r"front \(visible\) of CB 'x'.*missing CbWait"):
        simulate(Program(wh.name, (), (group,), "bad"), wh)
