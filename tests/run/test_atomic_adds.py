"""`hl.atomic_add`: a read, an add and a write where every grid dimension is in its index
(`loom.frontend.atomics`), and split-K as Helion users write it (a grid dimension a nested loop walks, summed
by the adds) compiled as one loop over all of k (`loom.frontend.split_sums`); what Tenstorrent cannot do
(adds into positions several grid tiles share, a tensor the host code makes other than zeros) is refused at
its line."""

from __future__ import annotations

import re

import pytest

from loom.errors import UnsupportedError
from tests.conftest import run_kernel_text

SPLIT_K = """
import torch
import helion
import helion.language as hl
from helion.autotuner import PowerOfTwoFragment


@helion.kernel(static_shapes=True)
def split_k_matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.zeros([m, n], dtype=x.dtype, device=x.device)
    split_k = hl.register_tunable("split_k", PowerOfTwoFragment(1, 64))
    k_block = helion.next_power_of_2(helion.cdiv(k, split_k))
    for tile_m, tile_n, outer_k in hl.tile([m, n, k], block_size=[None, None, k_block]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for inner_k in hl.tile(outer_k.begin, outer_k.end):
            acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])
        if outer_k.begin == 0:
            acc = EPILOGUE
        hl.atomic_add(out, [tile_m, tile_n], acc)
    return out


def inputs(M: int = 64, K: int = 1024, N: int = 96):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, K, generator=gen).to(torch.bfloat16), torch.randn(K, N, generator=gen).to(torch.bfloat16))


def reference(x, y):
    return (x.float() @ y.float()).to(torch.bfloat16)
"""


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
def test_split_k_by_atomic_adds_is_one_loop_over_k_and_matches_torch(tmp_path, arch):
    outcome = run_kernel_text(tmp_path, SPLIT_K.replace("EPILOGUE", "acc"), arch)
    assert outcome.check.ok, outcome.check
    blocks = outcome.compilation.schedule.block_sizes
    assert "outer_k" not in blocks and "outer_k" not in outcome.compilation.schedule.order  # folded into inner_k
    assert outcome.sim.dram_read_bytes_by_tensor["out"] == 64 * 96 * 2  # read once, added to, written


def test_an_epilogue_on_the_first_split_only_is_refused_at_its_line(tmp_path):
    with pytest.raises(UnsupportedError,
                       match=r"kernel.py:21: .*sum over `outer_k`.*but a branch on its position changes values"):
        run_kernel_text(tmp_path, SPLIT_K.replace("EPILOGUE", "acc * 2.0"))


ADD_INTO = """
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def add_into(x: torch.Tensor) -> torch.Tensor:
    out = CREATE
    for tile_m, tile_n in hl.tile(x.size()):
        hl.atomic_add(out, INDEX, x[tile_m, tile_n] * 2.0)
    return out


def inputs():
    return (torch.randn(64, 96),)


def reference(x):
    return x * 2.0
"""


def test_an_atomic_add_at_every_grid_dimension_is_a_read_an_add_and_a_write(tmp_path):
    text = ADD_INTO.replace("CREATE", "torch.zeros_like(x)").replace("INDEX", "[tile_m, tile_n]")
    outcome = run_kernel_text(tmp_path, text)
    assert outcome.check.ok, outcome.check


@pytest.mark.parametrize(("create", "index", "message"), [
    ("torch.ones_like(x)", "[tile_m, tile_n]", r"kernel.py:11: .*`out`, which the host code creates other than "
                                               r"filled with zeros"),
    ("torch.zeros([1, 96])", "[0, tile_n]", r"kernel.py:11: .*several tiles of the grid share \(`tile_m`"),
])
def test_what_tenstorrent_cannot_add_atomically_is_refused_at_its_line(tmp_path, create, index, message):
    with pytest.raises(UnsupportedError, match=message):
        run_kernel_text(tmp_path, ADD_INTO.replace("CREATE", create).replace("INDEX", index))


READ_BEFORE_WRITE = """
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def add_into(x: torch.Tensor) -> torch.Tensor:
    out = torch.ones_like(x)
    for tile_m, tile_n in hl.tile(x.size()):
        out[tile_m, tile_n] = out[tile_m, tile_n] + x[tile_m, tile_n]
    return out


def inputs():
    return (torch.randn(64, 96),)


def reference(x):
    return 1.0 + x
"""


def test_a_tensor_the_host_makes_nonzero_read_before_written_is_refused(tmp_path):
    """The per-core programs start the tensors the host creates at zero: this kernel used to give x, not 1 + x."""
    with pytest.raises(UnsupportedError, match=r"kernel.py:11: .*`out` is read before the kernel writes it"):
        run_kernel_text(tmp_path, READ_BEFORE_WRITE)
    outcome = run_kernel_text(tmp_path, READ_BEFORE_WRITE.replace("torch.ones_like(x)", "torch.zeros_like(x)")
                              .replace("1.0 + x", "x"))
    assert outcome.check.ok, outcome.check


ADD_INTO_ARGUMENT = """
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def add_into(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    for tile_m, tile_n in hl.tile(x.size()):
        hl.atomic_add(out, [tile_m, tile_n], x[tile_m, tile_n] * 2.0)
    return out


def inputs():
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(64, 96, generator=gen), torch.randn(64, 96, generator=gen))


def reference(x, out):
    return out + x * 2.0
"""


def test_an_atomic_add_into_an_argument_adds_to_what_the_caller_passed(tmp_path):
    outcome = run_kernel_text(tmp_path, ADD_INTO_ARGUMENT)
    assert outcome.check.ok, outcome.check


def test_the_read_of_out_after_the_loop_leaves_splits_of_k_on_offer():
    """The add reads `out` after the k loop, where each split group's first core runs alone: splitting k
    across cores moves no read of it (`loom.mapping.reduction.read_back_after`)."""
    from loom.kernel_file import load_kernel_file
    from loom.pipeline import compile as compile_kernel
    from tests.conftest import EXAMPLES

    source = load_kernel_file(EXAMPLES / "split_k_matmul.py")
    compilation = compile_kernel(source.kernel, source.example_args(meta=True), "wormhole_n150")
    assert any(c.split is not None and c.split.loop.name == "inner_k" for c in compilation.candidates.candidates)


READ_BEFORE_THE_LOOP = """
import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def add_product(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.zeros([x.size(0), y.size(1)], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([x.size(0), y.size(1)]):
        before = out[tile_m, tile_n]
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(x.size(1)):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = before + acc
    return out


def inputs():
    gen = torch.Generator().manual_seed(0)
    x, y = torch.randn(64, 2048, generator=gen), torch.randn(2048, 64, generator=gen)
    return (x.to(torch.bfloat16), y.to(torch.bfloat16))


def reference(x, y):
    return x.float() @ y.float()
"""


def test_a_read_back_before_the_loop_keeps_the_loop_on_one_core(tmp_path):
    """`out` read before the k loop: a split would have every core of a group read it: no split is offered."""
    outcome = run_kernel_text(tmp_path, READ_BEFORE_THE_LOOP)
    assert outcome.check.ok, outcome.check
    assert not any(c.split is not None for c in outcome.compilation.candidates.candidates)


@pytest.mark.parametrize(("change", "reason"), [
    # each split's maximum, added: not one maximum over k
    (("acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])",
      "acc = torch.maximum(acc, x[tile_m, inner_k].float() @ y[inner_k, tile_n].float())"),
     "does more than add to the values it carries"),
    # a count of the splits, added once per split: folding would add it once
    (("        hl.atomic_add(out, [tile_m, tile_n], acc)",
      "        hl.atomic_add(out, [tile_m, tile_n], acc)\n"
      "        hl.atomic_add(out, [tile_m, tile_n], hl.full([tile_m, tile_n], 1.0, dtype=x.dtype))"),
     "adds a value that is not the loop's sum, once per split"),
    # a walk that reads its split's own position differs from split to split
    (("acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])",
      "acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n]) + outer_k.begin"),
     "its loop reads `outer_k` itself"),
])
def test_split_sums_that_would_change_what_the_kernel_computes_are_refused(tmp_path, change, reason):
    text = SPLIT_K.replace("EPILOGUE", "acc").replace(*change)
    with pytest.raises(UnsupportedError, match=rf"kernel.py:\d+: .*sum over `outer_k`.*but .*{re.escape(reason)}"):
        run_kernel_text(tmp_path, text)


def test_a_launch_grid_that_starts_elsewhere_than_zero_is_refused(tmp_path):
    """Helion keeps a top-level loop's start out of its Device IR: it was read as 0 (a wrong answer)."""
    text = ADD_INTO.replace("CREATE", "torch.zeros_like(x)").replace("INDEX", "[tile_m, tile_n]").replace(
        "hl.tile(x.size())", "hl.tile([32, 0], [x.size(0), x.size(1)])")
    with pytest.raises(UnsupportedError, match=r"kernel.py:10: .*a launch grid that starts elsewhere than 0"):
        run_kernel_text(tmp_path, text)


@pytest.mark.parametrize(("create", "refused"), [
    ("torch.zeros_like(x)\n    out = torch.ones_like(x)", True),  # made again
    ("torch.zeros_like(x)\n    out += 1.0", True),  # changed in place
    ("torch.zeros_like(x)\n    scale = 2.0", False),
])
def test_a_tensor_is_zero_only_as_the_host_code_last_left_it(tmp_path, create, refused):
    text = ADD_INTO.replace("CREATE", create).replace("INDEX", "[tile_m, tile_n]")
    if refused:
        with pytest.raises(UnsupportedError, match="which the host code creates other than filled with zeros"):
            run_kernel_text(tmp_path, text)
    else:
        assert run_kernel_text(tmp_path, text).check.ok


def test_a_number_and_a_narrower_value_are_added_in_the_wider_format(tmp_path):
    """A bf16 value into an fp32 `out` adds in fp32 (not rounded to bf16), then a number (was an internal error)."""
    adds = "x[tile_m, tile_n].to(torch.bfloat16))\n        hl.atomic_add(out, [tile_m, tile_n], 1.0)"
    text = ADD_INTO.replace("CREATE", "torch.full_like(x, 0.0)").replace("INDEX", "[tile_m, tile_n]").replace(
        "x[tile_m, tile_n] * 2.0)", adds)
    text = text.replace("return x * 2.0", "return x.to(torch.bfloat16).float() + 1.0").replace(
        "torch.randn(64, 96)", "torch.randn(64, 96) * 1000.0")
    outcome = run_kernel_text(tmp_path, text)
    assert outcome.check.ok, outcome.check
