"""The host code after the device loop: a `return` of the loop's tensors, or of views of them that keep
their elements in order, names the kernel's outputs; anything else is host code that `loom run` runs in
torch (`loom.host_epilogue`), found at its first line."""

from __future__ import annotations

import pytest

from loom.frontend.host_code import read_host_return

KERNEL = '''
def kernel(x, y):
    out = torch.empty_like(x)
    aux = torch.empty_like(x)
    for tile in hl.tile(x.size()):
        out[tile] = x[tile]
        aux[tile] = y[tile]
    {tail}
'''


@pytest.mark.parametrize("tail, names", [
    ("return out, aux", ["out", "aux"]),
    ("return aux, out.view(-1, 8)", ["aux", "out"]),
    ("return out.contiguous().view(4, 16), aux.view_as(x)", ["out", "aux"]),
])
def test_returned_tensors_are_named_in_return_order(tail, names):
    lines = KERNEL.format(tail=tail).splitlines()
    assert read_host_return(lines, 2).names == names
    assert read_host_return(lines, 2).epilogue is None


@pytest.mark.parametrize("tail", ["return out.sum()", "out = out * 2", "return (out + aux).view(-1)"])
def test_other_host_code_after_the_loop_is_found_at_its_line(tail):
    lines = KERNEL.format(tail=tail).splitlines()
    assert read_host_return(lines, 2).epilogue == next(i for i, text in enumerate(lines, 1) if tail in text)
