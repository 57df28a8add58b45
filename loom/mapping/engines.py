"""Which data-movement engine issues each DRAM transfer, and on which NoC: a convention of the
per-core programs that the model prices and the per-core split follows (so it sits below both).

A Tensix core has two data-movement RISC-Vs, each driving its own NoC. Stores go to the writer.
Loads of one pipe stage alternate between the reader and the writer, as TT-Metalium's matmul
kernels do (in0 on one, in1 on the other), so two operands stream concurrently.

A read may also be issued on the other NoC (TT-Metalium's `noc_async_read` takes the NoC): the two
NoCs carry DRAM reads at different rates (`loom.arch.routes.dram_capacity`: on Wormhole the
reader's NoC 1 leaves the two bank columns along them, NoC 0 along the six bank rows), so a pipe
stage issues a share of the tile rows of its reads on the NoC that has room to spare
(`spread_reads`), until both would take about equally long. The model prices the stage's reads at
the two NoCs' capacities together.
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
    per block, and the tile rows of a block (the unit a share of it moves in)."""

    noc: int
    chip_bytes: float
    rows: int


def spread_reads(reads: list[Read], capacity: tuple[float, ...]) -> list[int]:
    """Tile rows of each read to issue on the other NoC: the reads of the NoC that would take longer
    give up the same share of their rows (rounded to whole rows) until both take about as long."""
    if len(capacity) < 2 or not reads:
        return [0] * len(reads)
    total = sum(r.chip_bytes for r in reads)
    on_first = sum(r.chip_bytes for r in reads if r.noc == 0)
    balanced = total * capacity[0] / (capacity[0] + capacity[1])  # bytes NoC 0 should carry
    busy = 1 if on_first < balanced else 0  # the NoC that carries too much
    pool = sum(r.chip_bytes for r in reads if r.noc == busy)
    share = abs(balanced - on_first) / pool if pool else 0.0
    return [min(r.rows, round(r.rows * share)) if r.noc == busy else 0 for r in reads]
