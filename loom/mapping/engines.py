"""Which data-movement engine issues each DRAM transfer, and on which NoC: a convention of the
per-core programs that the model prices and the per-core split follows (so it sits below both).

A Tensix core has two data-movement RISC-Vs, each driving its own NoC. Stores go to the writer.
Loads of one pipe stage alternate between the reader and the writer, as TT-Metalium's matmul
kernels do (in0 on one, in1 on the other), so two operands stream concurrently.

A read may also be issued on the other NoC (TT-Metalium's `noc_async_read` takes the NoC): the two
NoCs carry DRAM reads at different rates (`loom.arch.routes.dram_capacity`: on Wormhole the
reader's NoC 1 leaves the two bank columns along them, NoC 0 along the six bank rows), so a pipe
stage may issue a share of the tile rows of its reads on the NoC that has room to spare
(`spread_reads`, with its stores on the writer's NoC counted: `loom.arch.routes.shared_links`),
until both NoCs' busiest links are about equally loaded. A pipe's `spread_` knob decides; the model
prices the stage's reads on both NoCs together when it is on.
"""

from __future__ import annotations

from dataclasses import dataclass


def load_engine(position: int, reads_back: bool = False) -> str:
    """Engine of the `position`-th DRAM load (0-based) of a pipe stage; a load of a tensor the kernel also
    stores (`reads_back`: a core reading back its own blocks) goes to the writer, behind those stores."""
    if reads_back:
        return "writer"
    return "reader" if position % 2 == 0 else "writer"


def engine_noc(engine: str, nocs: int) -> int:
    """The NoC an engine drives: the reader NoC 1 (TT-Metalium's reader kernels on Wormhole), every
    other engine NoC 0; NoC 0 where there is only one."""
    return 1 if engine == "reader" and nocs > 1 else 0


@dataclass(frozen=True)
class Read:
    """One DRAM load of a pipe stage: the NoC its engine drives, the bytes all its reading cores move
    per block, and the parts a share of a block moves in (its tile rows; its tiles if it is one row)."""

    noc: int
    chip_bytes: float
    parts: int


def spread_reads(reads: list[Read], links: tuple[tuple[tuple[float, float], ...], ...],
                 writes: tuple[float, ...]) -> list[int]:
    """Parts of each read to issue on the other NoC: the reads of the NoC that would take longer give
    up the same share of their parts (rounded to whole ones) until both take about as long. `links`:
    per NoC, (a, b) of the links DRAM traffic loads (`loom.arch.routes.shared_links`: a link carries
    a x reads + b x writes); `writes`: the stage's stores on each NoC, in the reads' units."""
    if len(links) < 2 or not reads:
        return [0] * len(reads)
    total = sum(r.chip_bytes for r in reads)
    on = [sum(r.chip_bytes for r in reads if r.noc == n) for n in (0, 1)]

    def busy(noc: int, read: float) -> float:  # the busiest link's load
        return max(a * read + b * writes[noc] for a, b in links[noc])

    low, high = 0.0, total  # the reads on NoC 0 that balance the two: NoC 0 busier with more of them
    for _ in range(50):
        mid = (low + high) / 2
        low, high = (mid, high) if busy(0, mid) < busy(1, total - mid) else (low, mid)
    moved = low - on[0]  # to NoC 0 (from NoC 1 when negative)
    source = 1 if moved > 0 else 0
    share = min(abs(moved) / on[source], 1.0) if on[source] else 0.0
    return [min(r.parts, round(r.parts * share)) if r.noc == source else 0 for r in reads]
