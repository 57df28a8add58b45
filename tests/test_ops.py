"""The op table end to end: every entry a Helion user can write goes frontend -> per-core program ->
simulator and matches torch, on every architecture; every entry has all its pieces."""

from __future__ import annotations

import math

import numpy as np
import pytest

from loom import cost, ops
from loom.arch import load_arch
from loom.errors import UnsupportedError
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run

ARCHS = ("wormhole_n150", "blackhole_p150", "ring32")
USER_OPS = [op for op in ops.all_ops() if op.aten and op.ir is not None and op.form != "mask"]
"""Ops a user writes; the tail mask is Helion's own `_mask_to` (tests/run/test_tails.py)."""

# How a user writes each op on tiles `a` and `b` (positive inputs, so log and division are defined).
_EXPRESSION = {
    ("binary", "add"): "a + b", ("binary", "sub"): "a - b", ("binary", "mul"): "a * b",
    ("binary", "div"): "a / b", ("binary", "max"): "torch.maximum(a, b)", ("binary", "min"): "torch.minimum(a, b)",
    ("unary", "exp"): "torch.exp(a)", ("unary", "exp2"): "torch.exp2(a)", ("unary", "log"): "torch.log(a)",
    ("unary", "log2"): "torch.log2(a)",
    ("unary", "neg"): "-a", ("unary", "abs"): "torch.abs(a - b)", ("unary", "sqrt"): "torch.sqrt(a)",
    ("unary", "rsqrt"): "torch.rsqrt(a)", ("unary", "tanh"): "torch.tanh(a - b)",
    ("unary", "log1p"): "torch.log1p(a)", ("unary", "sin"): "torch.sin(4 * a)", ("unary", "cos"): "torch.cos(4 * a)",
    ("unary", "erf"): "torch.erf(a - b)", ("unary", "sigmoid"): "torch.sigmoid(4 * (a - b))",
    ("unary", "gelu"): "torch.nn.functional.gelu(4 * (a - b))",
    ("unary", "gelu_tanh"): "torch.nn.functional.gelu(4 * (a - b), approximate='tanh')",
    ("binary", "gt"): "torch.where(a > b, a, b)", ("binary", "ge"): "(a >= b).float()",
    ("binary", "lt"): "torch.where(a < b, a - b, 0.0)", ("binary", "le"): "(a <= b).float() * b",
    ("binary", "eq"): "(a == a).float() + (a == b).float()", ("binary", "ne"): "torch.where(a != b, a, 2.0)",
    ("unary", "sign"): "torch.sign(a - b)", ("unary", "floor"): "torch.floor(4 * (a - b))",
    ("unary", "ceil"): "torch.ceil(4 * (a - b))", ("unary", "trunc"): "torch.trunc(4 * (a - b))",
    ("unary", "round"): "torch.round(4 * (a - b))", ("unary", "expm1"): "torch.expm1(a - b)",
    ("reduce", "max"): "a - torch.amax(a, -1)[:, None]", ("reduce", "min"): "a - torch.amin(a, -1)[:, None]",
    ("reduce", "sum"): "a - torch.sum(a, -1)[:, None]",
}

_KERNEL = '''
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def op_kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        a = x[tile_m, tile_n]
        b = y[tile_m, tile_n]
        out[tile_m, tile_n] = {expression}
    return out


def inputs(M: int = 64, N: int = 64):
    return (torch.rand(M, N) + 0.5, torch.rand(M, N) + 0.5)


def reference(x, y):
    a, b = x, y
    return {expression}
'''


def _kernel_file(tmp_path, op: ops.Op):
    path = tmp_path / f"{op.form}_{op.name}.py"
    path.write_text(_KERNEL.format(expression=_EXPRESSION[(op.form, op.name)]))
    return load_kernel_file(path)


def test_every_user_op_has_a_kernel_here():
    assert {(op.form, op.name) for op in USER_OPS} == set(_EXPRESSION)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("op", USER_OPS, ids=lambda op: f"{op.form}-{op.name}")
def test_op_runs_end_to_end_and_matches_torch(tmp_path, op, arch):
    source = _kernel_file(tmp_path, op)
    args = source.example_args({"M": 64, "N": 64})
    compilation = compile_kernel(source.kernel, args, arch, block_sizes={"tile_m": 32, "tile_n": 64})
    outcome = run(compilation, args, reference=source.reference)
    assert outcome.check.ok, outcome.check


@pytest.mark.parametrize("op", ops.all_ops(), ids=lambda op: f"{op.form}-{op.name}")
def test_every_entry_is_complete_and_priced_everywhere(op):
    assert op.ttlang is not None or op.no_ttlang, f"{op.name}: a TT-Lang form or the reason there is none"
    for arch in ARCHS:
        assert ops.missing_cost(op, load_arch(arch)) == []
    x = np.linspace(0.5, 1.5, 64, dtype=np.float32).reshape(8, 8)
    if op.form == "mask":
        result = op.numpy(x, np.ones_like(x, dtype=bool), -np.inf)
    else:
        result = op.numpy(x, x) if op.form == "binary" else op.numpy(x)
    assert np.all(np.isfinite(result))


def test_an_op_the_arch_does_not_price_is_refused_at_compile_time_with_the_line(tmp_path):
    op = ops.lookup("unary", "log")
    source = _kernel_file(tmp_path, op)
    arch = load_arch("wormhole_n150")
    table = {k: v for k, v in arch.vector_unit.cycles_per_tile.items() if k != "log"}
    unpriced = arch.model_copy(update={"vector_unit": arch.vector_unit.model_copy(update={"cycles_per_tile": table})})
    with pytest.raises(UnsupportedError, match=r"vector_unit\.cycles_per_tile\.log") as err:
        compile_kernel(source.kernel, source.example_args({"M": 64, "N": 64}), unpriced)
    assert err.value.location is not None and "torch.log" in err.value.location.code


def test_an_op_outside_the_table_is_refused_at_compile_time_with_the_line(tmp_path):
    path = tmp_path / "atan.py"
    path.write_text(_KERNEL.format(expression="torch.atan(a)"))
    source = load_kernel_file(path)
    with pytest.raises(UnsupportedError) as err:
        compile_kernel(source.kernel, source.example_args({"M": 64, "N": 64}), "wormhole_n150")
    assert err.value.location is not None


# Model and simulator price every op from the same numbers (`loom.cost`), each combining them its
# own way: the simulator runs the three threads, the model uses its closed-form equation.
BLOCKS = [(1, 1), (1, 4), (2, 2), (4, 4), (8, 2), (8, 8)]


def _simulated(stages: cost.Stages) -> float:
    from loom.sim.tensix import Threads

    threads = Threads()
    threads.run(stages, 0.0, (), ())
    return threads.pack


def _modelled(arch, stages: cost.Stages) -> int:
    from loom.model import expr as E
    from loom.model.latency import instruction

    return E.evaluate(instruction(arch, stages), {})


@pytest.mark.parametrize("arch", ARCHS)
def test_model_and_simulator_price_every_op_within_5_percent(arch):
    target = load_arch(arch)
    for rows, cols in BLOCKS:
        tiles = rows * cols
        table = [cost.eltwise(target, op, tiles, ("bfloat16",) * (2 if op.form == "binary" else 1), "bfloat16")
                 for op in ops.all_ops() if op.form != "reduce"]
        table += [cost.reduce(target, op, rows, cols, "bfloat16", "bfloat16")
                  for op in ops.all_ops() if op.form == "reduce"]
        table += [cost.datacopy(target, key, tiles, "bfloat16", "float32") for key in ("copy", "transpose")]
        for k in (1, 4):
            for fidelity in target.matrix_engine.cycles_per_tile:
                table.append(cost.matmul(target, rows, cols, k, ("bfloat16", "bfloat16", "float32"), fidelity))
        for stages in table:
            simulated, modelled = _simulated(stages), _modelled(target, stages)
            assert math.isclose(modelled, simulated, rel_tol=0.05), (rows, cols, stages, modelled, simulated)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("expression", ["a + 1.5", "2.0 - a", "a - 0.25", "a / 4.0", "a * 3.0"])
def test_a_binary_op_with_a_constant_operand_runs_and_matches_torch(tmp_path, expression, arch):
    path = tmp_path / "scalar.py"
    path.write_text(_KERNEL.format(expression=expression))
    source = load_kernel_file(path)
    args = source.example_args({"M": 64, "N": 64})
    compilation = compile_kernel(source.kernel, args, arch, block_sizes={"tile_m": 32, "tile_n": 64})
    outcome = run(compilation, args, reference=source.reference)
    assert outcome.check.ok, outcome.check


@pytest.mark.parametrize("expression", [
    "torch.relu(a - b)", "torch.clamp(a, 0.75, 1.25)", "torch.clamp_min(a - b, 0.1)",
    "a ** 2", "torch.square(a - b)", "a ** 0.5", "a ** -0.5", "a ** -1",
    "torch.ones_like(a) + torch.full_like(a, 2.0) * a - torch.zeros_like(b)",
])
def test_an_op_written_by_another_entry_runs_and_matches_torch(tmp_path, expression):
    """relu and clamp are max / min with a constant, powers are products or roots, `*_like` are fills."""
    path = tmp_path / "rewritten.py"
    path.write_text(_KERNEL.format(expression=expression))
    source = load_kernel_file(path)
    args = source.example_args({"M": 64, "N": 64})
    compilation = compile_kernel(source.kernel, args, "wormhole_n150", block_sizes={"tile_m": 32, "tile_n": 64})
    outcome = run(compilation, args, reference=source.reference)
    assert outcome.check.ok, outcome.check


def test_a_zero_power_is_refused_with_the_line(tmp_path):
    path = tmp_path / "zeroth.py"
    path.write_text(_KERNEL.format(expression="a ** 0"))
    source = load_kernel_file(path)
    with pytest.raises(UnsupportedError, match=r"x \*\* 0.*nonzero constant") as err:
        compile_kernel(source.kernel, source.example_args({"M": 64, "N": 64}), "wormhole_n150")
    assert err.value.location is not None and "a ** 0" in err.value.location.code


def test_a_widened_tile_operand_is_not_taken_for_a_constant(tmp_path):
    """`bf16_tile + fp32_tile` has the body `addf(extf(a), b)`: both operands are tiles (was an
    internal error in the split, which took the widened tile for a constant)."""
    path = tmp_path / "mixed.py"
    path.write_text(_KERNEL.format(expression="a + b").replace(
        "return (torch.rand(M, N) + 0.5, torch.rand(M, N) + 0.5)",
        "return ((torch.rand(M, N) + 0.5).to(torch.bfloat16), torch.rand(M, N) + 0.5)").replace(
        "a, b = x, y", "a, b = x.float(), y"))
    source = load_kernel_file(path)
    args = source.example_args({"M": 64, "N": 64})
    compilation = compile_kernel(source.kernel, args, "wormhole_n150", block_sizes={"tile_m": 32, "tile_n": 64})
    outcome = run(compilation, args, reference=source.reference)
    assert outcome.check.ok, outcome.check
