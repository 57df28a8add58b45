"""Stage 1, global tensors as the per-core programs lay them out: rank-1 tensors as a 1 x N row or an
N x 1 column, by how the kernel uses them; and the tensors the host code creates, which the kernel
may write but not read back."""

from __future__ import annotations

import torch
import torch.fx

from loom.errors import UnsupportedError
from loom.frontend.helion import TracedKernel
from loom.frontend.tiles import IDENTITY, target_name


def vector_layouts(kernel: TracedKernel, tensors: dict[str, torch.Tensor]) -> dict[str, str]:
    """How each rank-1 tensor is laid out as a matrix: "col" (N x 1: one value per row, the layout of a
    row reduction's result, `out[tile_m] = x[tile_m, :].sum(-1)`) or "row" (1 x N, a vector broadcast
    down the rows, `w[None, :]`, or `acc + b[tile_n]` by torch's broadcasting): by how the kernel indexes
    and uses it, the same way at every access."""
    layouts: dict[str, str] = {}
    for graph in kernel.graphs():
        for node in graph.nodes:
            if target_name(node) not in ("load", "store") or target_name(node.args[0]) != "_host_tensor":
                continue
            name = node.args[0].args[0]
            if name not in tensors or tensors[name].dim() != 1:
                continue
            index = list(node.args[1])
            layout = "row" if (index and index[0] is None) or _used_as_row(node) else "col"
            if layouts.setdefault(name, layout) != layout:
                raise UnsupportedError(
                    f"the rank-1 tensor `{name}` is indexed both as a row (`{name}[None, …]`) and as a column "
                    f"(`{name}[…]`); expected one of them at every access", kernel.location(node))
    return layouts


def _used_as_row(load: torch.fx.Node) -> bool:
    """A rank-1 load whose value is broadcast down rows: `w[tile_n][None, :]`, or by torch's implicit
    broadcasting, which aligns a rank-1 operand with the last dimension (`acc + bias[tile_n]`); followed
    through format conversions and rank-1 elementwise ops. `w[tile_m][:, None]` is a column."""
    stack, seen = [load], set()
    while stack:
        node = stack.pop()
        for user in node.users:
            if user in seen:
                continue
            seen.add(user)
            name = target_name(user)
            if name == "subscript":
                if list(user.args[1])[:1] == [None]:
                    return True
                continue  # `[:, None]`: a column
            rank = _rank(user)
            if name in ("prims.convert_element_type.default", *IDENTITY) or (name.startswith("aten.") and rank == 1):
                stack.append(user)
            elif name.startswith("aten.") and rank is not None and rank >= 2:
                return True
    return False


def _rank(node: torch.fx.Node) -> int | None:
    value = node.meta.get("val")
    return value.dim() if isinstance(value, torch.Tensor) else None


def laid_out(shape: list[int], layout: str | None) -> list[int]:
    return {None: shape, "row": [1, *shape], "col": [*shape, 1]}[layout]


def check_no_read_back(kernel: TracedKernel, created: list[str]) -> None:
    """Refuse a load of a tensor the host code created (`c = torch.empty(…)`): it holds only what the
    kernel stored, and Loom's per-core programs do not order a core's DRAM writes before its later
    reads (the reader would see the tensor before the writer's stores land)."""
    for graph in kernel.graphs():
        for node in graph.nodes:
            if target_name(node) == "load" and target_name(node.args[0]) == "_host_tensor" \
                    and node.args[0].args[0] in created:
                name = node.args[0].args[0]
                raise UnsupportedError(
                    f"`{name}` is created by the host code and read back inside the kernel; Loom does not order a "
                    f"core's stores to `{name}` before its later loads of it yet: expected the stored value used "
                    "from the variable that holds it, or the kernel split in two",
                    kernel.location(node))
