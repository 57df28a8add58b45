"""Solver knobs: each 0/1 decision declared once, on the execution-graph node it belongs to.

A knob names the buffers it sizes; three readers use the declaration and nothing else:
- the latency model (`loom.model.latency`) prices both settings (`select(knob, on, off)`),
- the L1 constraint (`loom.model.constraints`) sizes its buffers: two slots when an overlap knob
  is on, the device loop's whole panel when a hoist knob is on,
- the backend (`loom.backend.split`) builds those buffers: two-slot circular buffers, or a
  panel read once per iteration of the loops outside the hoisted one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from loom.model.heg import Hoist

KnobKind = Literal["overlap_load", "overlap_store", "hoist"]


@dataclass(frozen=True)
class Knob:
    """One 0/1 solver decision.

    `overlap_load` / `overlap_store`: a pipe's loads (stores) overlap its compute; their buffers
    get two slots. `hoist`: the innermost temporal loop keeps `hoist`'s loads whole in L1."""

    name: str
    kind: KnobKind
    buffers: tuple[str, ...]
    hoist: Hoist | None = None

    @property
    def doubles(self) -> bool:
        """Whether the knob, when on, gives its buffers a second slot."""
        return self.kind != "hoist"


def double_buffered(knobs: list[Knob], values: dict[str, int]) -> set[str]:
    """Buffers the knobs that are on give two slots."""
    return {b for k in knobs if k.doubles and values.get(k.name) for b in k.buffers}


__all__ = ["Knob", "KnobKind", "double_buffered"]
