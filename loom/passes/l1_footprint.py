"""The symbolic L1 footprint of a program: what stage 5 constrains against the L1 capacity.

Each storage slot (`loom.mem.alloc` after stage 3, or each `loom.vb.create` before it)
contributes `element bytes × Π dims`, where a dim is an integer or a `loom.sym` label. L1 holds
whole tiles: with a tile shape given, static dims are rounded up to it and a vector (rank 1)
occupies one tile column (a row of running maxima is `tile_m × 32`). Which slots get a second
copy (double buffering) or hold a whole panel is decided later, by the solver knobs stage 5
declares on the execution graph (`loom.model.heg.Knob`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp
from xdsl.ir import SSAValue

from loom.ir.dialect import MemAllocOp, VbBindOp, VbCreateOp
from loom.ir.types import element_bytes, symbolic_dims


@dataclass(frozen=True)
class FootprintTerm:
    """One storage slot: `element_bytes × Π dims`."""

    slot: int
    element_bytes: int
    dims: tuple[int | str, ...]  # ints and loom.sym labels
    buffers: tuple[str, ...]  # the virtual buffers stored here

    def bytes(self, sizes: dict[str, int]) -> int:
        elements = math.prod(d if isinstance(d, int) else sizes[d] for d in self.dims)
        return self.element_bytes * elements

    def expression(self) -> str:
        return "*".join([str(self.element_bytes)] + [str(d) for d in self.dims])


@dataclass(frozen=True)
class L1Footprint:
    terms: tuple[FootprintTerm, ...]

    def bytes(self, sizes: dict[str, int]) -> int:
        return sum(t.bytes(sizes) for t in self.terms)

    def expression(self) -> str:
        return " + ".join(t.expression() for t in self.terms) or "0"




def _tiled(dims: tuple[int | str, ...], tile: tuple[int, int] | None) -> tuple[int | str, ...]:
    if tile is None:
        return dims
    if len(dims) == 1:
        dims = dims + (tile[1],)
    head, rows, cols = dims[:-2], dims[-2], dims[-1]
    pad = [(-(-d // t) * t if isinstance(d, int) else d) for d, t in ((rows, tile[0]), (cols, tile[1]))]
    return tuple(head) + tuple(pad)


def l1_footprint(module: ModuleOp, tile: tuple[int, int] | None = None) -> L1Footprint:
    """The footprint of the storage in `module` (stage 3 slots, or stage 2 buffers one each).

    `tile` is the architecture's (rows, cols) tile shape; without it, elements are counted exactly.
    """
    slots = [op for op in module.walk() if isinstance(op, MemAllocOp)]
    terms = []
    if slots:
        binds = [op for op in module.walk() if isinstance(op, VbBindOp)]
        for mem in slots:
            members = [b for b in binds if b.memory is mem.memory]
            terms.append(_term(mem.slot.value.data, mem.memory, list(mem.sizes), [b.buffer for b in members],
                               [b.label.data for b in members], tile))
    else:
        creates = [op for op in module.walk() if isinstance(op, VbCreateOp)]
        for index, create in enumerate(creates):
            terms.append(_term(index, create.buffer, list(create.sizes), [create.buffer], [create.label.data], tile))
    return L1Footprint(tuple(terms))


def _term(slot: int, storage: SSAValue, sizes, buffers: list[SSAValue], labels: list[str],
          tile: tuple[int, int] | None) -> FootprintTerm:
    memref = storage.type
    dims = _tiled(symbolic_dims(sizes, memref.get_shape()), tile)
    return FootprintTerm(slot, element_bytes(memref.element_type), dims, tuple(labels))


def whole_leading_blocks(module: ModuleOp) -> list[tuple[str, int]]:
    """(source line, positions) of each global block that spans more than one position of its leading
    dimensions (`x[tile_b, :, tile_t, :]`): every position is in L1 at once, whatever the block sizes."""
    found = []
    for op in module.walk():
        if isinstance(op, memref.SubviewOp):
            positions = math.prod(s for s in op.static_sizes.get_values()[:-2] if s != DYNAMIC_INDEX)
            if positions > 1 and "loom.loc" in op.attributes:
                found.append((op.attributes["loom.loc"].data, positions))
    return sorted(set(found))
