"""The rows a schedule keeps in L1 for its passes (the `keep_` knob, `loom.model.heg.Keep`).

With the knob on, the first pass's load of a row that later passes load alike
(`loom.mapping.passes`) becomes a panel: a CB of the loop's blocks (twice that when the tile
pipe's loads overlap its compute, so the next tile's row arrives meanwhile), filled by its engine
ahead of the first pass, waited for by compute block by block in the first pass (block `i` in
iteration `i`: a growing prefix of the row, never popped there), read as block `i` in iteration `i`
of every pass, and freed after the last. The later passes' loads are not issued.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import affine, scf

from loom.ir.dialect import CopyOp
from loom.mapping.passes import repeated_passes
from loom.model.heg import Knob, load_buffer


@dataclass(frozen=True)
class Panel:
    """A first pass's load buffer holding the whole row."""

    buffer: str
    trips: int  # blocks per row
    slots: int  # blocks the CB holds
    first: scf.ForOp  # compute waits for the row block by block in this loop
    last: scf.ForOp  # and frees it after this one


@dataclass
class KeptRows:
    panels: dict[str, Panel] = field(default_factory=dict)  # by buffer label
    reads: dict[str, tuple[str, str]] = field(default_factory=dict)  # a pass's load buffer -> (panel, loop var)
    dropped: set[CopyOp] = field(default_factory=set)  # the later passes' loads

    def wait_before(self, loop: scf.ForOp) -> list[Panel]:
        return [p for p in self.panels.values() if p.first is loop]

    def free_after(self, loop: scf.ForOp) -> list[Panel]:
        return [p for p in self.panels.values() if p.last is loop]


def kept_rows(grid: affine.ParallelOp, outputs: set[str], declared: list[Knob], knobs: dict[str, int],
              sizes: dict[str, int]) -> KeptRows:
    """The panels of the keep knob that is on (none where it is off or not declared)."""
    out = KeptRows()
    keep = next((k.keep for k in declared if k.keep is not None and knobs.get(k.name)), None)
    if keep is None:
        return out
    for passes in repeated_passes(grid, outputs):
        first = load_buffer(passes.loads[0])
        if first not in keep.buffers:
            continue
        (extent, block) = keep.loops[keep.buffers.index(first)]
        trips = -(-extent // (block if isinstance(block, int) else sizes[block]))
        slots = trips * (2 if knobs.get(keep.overlap_knob) else 1)
        out.panels[first] = Panel(first, trips, slots, passes.loops[0], passes.loops[-1])
        for loop, load in zip(passes.loops, passes.loads):
            out.reads[load_buffer(load)] = (first, loop.body.block.args[0].name_hint or "i")
        out.dropped.update(passes.loads[1:])
    return out


__all__ = ["KeptRows", "Panel", "kept_rows"]
