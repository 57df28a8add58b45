"""Issue 17, part 7: defects found by running Helion's own examples. Each kernel here failed inside Loom
(an internal error, or Helion failing on something Loom did); each now compiles and matches torch."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from loom.frontend.helion import _bind
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run

KERNELS = Path(__file__).parent / "defect_kernels"


@pytest.mark.parametrize("name", ["module_globals", "repeated_operand", "scalar_arguments", "whole_row_matmul",
                                  "two_pass_rows", "two_outputs"])
def test_defect_kernel_compiles_and_matches_torch(name):
    source = load_kernel_file(KERNELS / f"{name}.py")
    args = source.example_args()
    meta = source.example_args(meta=True)  # compiling binds on meta tensors, as `loom run` does
    compilation = compile_kernel(source.kernel, meta, "wormhole_n150", shape=source.size_names())
    outcome = run(compilation, args, reference=source.reference)
    assert outcome.check.ok, outcome.check


def test_kernel_file_module_is_registered_and_an_alias_is_one_kernel():
    import sys

    source = load_kernel_file(KERNELS / "module_globals.py")
    assert sys.modules[source.kernel.fn.__module__].scaled is source.kernel.fn.__globals__["scaled"]


def test_repeated_operand_is_restored_in_the_graph():
    from loom.frontend.helion import trace_kernel

    source = load_kernel_file(KERNELS / "repeated_operand.py")
    traced = trace_kernel(source.kernel, source.example_args(meta=True))
    muls = [n for n in traced.root.nodes if "mul.Tensor" in str(n.target)]
    assert muls and all(None not in n.args for n in muls)


def test_binding_falls_back_to_cpu_tensors_when_meta_fails():
    seen = []

    class Kernel:
        def bind(self, args):
            seen.append([a.device.type for a in args])
            if args[0].is_meta:
                raise NotImplementedError("no meta kernel")
            return "bound"

    big = torch.empty(1 << 16, 1 << 14, device="meta")  # 4 GiB of fp32: a broadcast view, not an allocation
    assert _bind(Kernel(), (torch.empty(4, 4, device="meta"), big)) == "bound"
    assert seen == [["meta", "meta"], ["cpu", "cpu"]]



def test_an_unknown_scalar_operand_is_a_located_refusal(monkeypatch):
    """A scalar symbol Loom cannot evaluate is refused at its line, not passed to float()."""
    import loom
    import loom.frontend.helion as frontend
    from loom.errors import UnsupportedError

    real = frontend.trace_kernel

    def forgetting_scalars(kernel, args):
        traced = real(kernel, args)
        assert traced.scalars  # eps and the module constant were found
        traced.scalars = {}
        return traced

    monkeypatch.setattr(frontend, "trace_kernel", forgetting_scalars)
    source = load_kernel_file(KERNELS / "scalar_arguments.py")
    with pytest.raises(UnsupportedError, match="not known when compiling") as info:
        loom.lower(source.kernel, source.example_args())
    assert info.value.location.line == 18


def test_host_view_of_an_argument_is_a_located_refusal(tmp_path):
    """`x_t = x.t()` in the host code: a strided view, not a tensor of its own (was an internal error)."""
    import loom
    from loom.errors import UnsupportedError

    path = tmp_path / "host_view.py"
    path.write_text('''import torch
import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def transposed_copy(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    x_t = x.t()
    out = torch.empty([n, m], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([n, m]):
        out[tile_m, tile_n] = x_t[tile_m, tile_n]
    return out


def inputs():
    return (torch.randn(64, 128),)
''')
    source = load_kernel_file(path)
    with pytest.raises(UnsupportedError, match="view of another tensor") as info:
        loom.lower(source.kernel, source.example_args())
    assert info.value.location.line == 9
