"""Reuse analysis: which loop and grid indices each global access depends on.

An access's offsets are built from `tile index × block size` (stage 1); walking their
definitions gives the set of indices (grid axes, device loops) the access depends on. An access
that does not depend on a grid axis is read identically by every core along that axis (spatial
reuse: multicast); one that does not depend on an enclosing loop is read identically in every
iteration (temporal or sequential reuse: the load can stay in L1).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import affine, memref, scf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from loom.ir.dialect import CopyOp
from loom.ir.types import element_bytes


@dataclass(frozen=True)
class AccessReuse:
    """Reuse facts of one DRAM access (a `loom.copy` between DRAM and L1)."""

    tensor: str
    direction: str  # "load" or "store"
    bytes_per_element: int
    tensor_bytes: int
    depends_on: frozenset[str]  # grid axes and loop index names
    spatial: tuple[str, ...]  # grid axes it is invariant along
    sequential: tuple[str, ...]  # enclosing device loops it is invariant along


def index_dependencies(value: SSAValue, seen: set | None = None) -> set[SSAValue]:
    """The block arguments (grid or loop indices) an index value is computed from."""
    seen = set() if seen is None else seen
    if value in seen:
        return set()
    seen.add(value)
    if isinstance(value, BlockArgument):
        return {value}
    out: set[SSAValue] = set()
    for operand in value.owner.operands:
        out |= index_dependencies(operand, seen)
    return out


def _index_name(arg: BlockArgument) -> str:
    return (arg.name_hint or "iv").removesuffix("_idx")


def _enclosing_loops(op: Operation) -> list[scf.ForOp]:
    loops = []
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, affine.ParallelOp):
        if isinstance(parent, scf.ForOp):
            loops.append(parent)
        parent = parent.parent_op()
    return loops


def access_reuse(grid: affine.ParallelOp) -> list[AccessReuse]:
    """Reuse facts of every DRAM access in a grid body, in program order."""
    axes = [_index_name(a) for a in grid.body.block.args]
    facts = []
    for op in grid.walk():
        if not isinstance(op, CopyOp):
            continue
        load = op.src_space.data == "DRAM"
        view = op.source if load else op.dest
        subview = view.owner
        assert isinstance(subview, memref.SubviewOp)
        deps: set[SSAValue] = set()
        for offset in subview.offsets:
            deps |= index_dependencies(offset)
        names = frozenset(_index_name(d) for d in deps if isinstance(d.owner, Block))
        global_type = subview.source.type
        element = global_type.element_type
        width = element_bytes(element)
        count = 1
        for extent in global_type.get_shape():
            count *= extent
        loops = [_index_name(loop.body.block.args[0]) for loop in _enclosing_loops(op)]
        # in a loop to an enclosing tile's end, cores along that tile's axis run different trips: no sharing
        names |= {loop.attributes["loom.until"].data for loop in _enclosing_loops(op)
                  if "loom.until" in loop.attributes}
        facts.append(AccessReuse(
            tensor=subview.source.name_hint or "?",
            direction="load" if load else "store",
            bytes_per_element=width,
            tensor_bytes=count * width,
            depends_on=names,
            spatial=tuple(a for a in axes if a not in names),
            sequential=tuple(loop for loop in loops if loop not in names),
        ))
    return facts
