"""Which data-movement engine issues each DRAM transfer, and on which NoC: a convention of the
per-core programs that the model prices and the per-core split follows (so it sits below both).

A Tensix core has two data-movement RISC-Vs, each driving its own NoC. Stores go to the writer.
Loads of one pipe stage alternate between the reader and the writer, as TT-Metalium's matmul
kernels do (in0 on one, in1 on the other), so two operands stream concurrently.

A read may also be issued on the other NoC (TT-Metalium's `noc_async_read` takes the NoC): the two
NoCs carry DRAM reads at different rates (`loom.arch.routes.dram_capacity`: on Wormhole the
reader's NoC 0 leaves the two bank columns along the bank rows, +x first, where NoC 1 runs along
the columns, -y first; so the writer's loads on NoC 1 bind first), so a pipe
stage may issue a share of the tile rows of its reads on the NoC that has room to spare
(`spread_reads`, with its stores on the writer's NoC counted: `loom.arch.routes.shared_links`),
until both NoCs' busiest links are about equally loaded. A pipe's `spread_` knob decides; the model
prices the stage's reads on both NoCs together when it is on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from loom.arch.routes import dram_capacity, read_capacity

if TYPE_CHECKING:
    from loom.arch import Arch


def load_engine(position: int, reads_back: bool = False) -> str:
    """Engine of the `position`-th DRAM load (0-based, `engine_positions`) of a pipe stage; a load of a tensor
    the kernel also stores (`reads_back`: a core reading back its own blocks) goes to the writer, behind those
    stores."""
    if reads_back:
        return "writer"
    return "reader" if position % 2 == 0 else "writer"


Span = tuple[str, int, int]
"""Where a load reaching outside its tensor reads (`loom.frontend.access.Access.inside_span`): the tile whose
positions reach out, the first position inside the tensor and the first past it."""


def load_engines(spans: list[Span | None], reads_back: list[bool]) -> list[str]:
    """The engine of each DRAM load of a pipe stage, in order: `load_engine` at its `engine_positions`."""
    return [load_engine(position, back) for position, back in zip(engine_positions(spans), reads_back)]


def engine_positions(spans: list[Span | None]) -> list[int]:
    """The position (`load_engine`) of each load of a pipe stage: the next one, except that loads inside their
    tensors on disjoint positions of one tile (concat's `x[tile_m, cols]` and `y[tile_m, cols - n1]`) share
    one: a block reads one of them (both only where it straddles the boundary), so one engine issues its read
    and the other is free for the stores; on an engine each, half the cores would read and store on one."""
    positions: list[int] = []
    groups: list[list[Span]] = []  # the spans at each position so far, [] for a load that reads every block
    for span in spans:
        joined = next((i for i, group in enumerate(groups) if span and group and all(
            other[0] == span[0] and (other[2] <= span[1] or span[2] <= other[1]) for other in group)), None)
        if joined is None:
            joined = len(groups)
            groups.append([])
        if span:
            groups[joined].append(span)
        positions.append(joined)
    return positions


def engine_noc(engine: str, nocs: int) -> int:
    """The NoC an engine drives: the reader NoC 0, every other engine (the writer) NoC 1, as
    TT-Metalium's reader and writer kernels do (`ReaderDataMovementConfig` / `WriterDataMovementConfig`
    take `preferred_noc_for_dram_read` / `_write`: NOC_0 / NOC_1 on Wormhole and Blackhole, tt-metal
    tt_metal/api/tt-metalium/data_types.hpp); NoC 0 where there is only one."""
    return 1 if engine != "reader" and nocs > 1 else 0


def read_noc(arch: Arch, used: tuple[int, ...], group: tuple[int, ...] = ()) -> int:
    """The NoC a DRAM load's reads take: the one that carries most from the banks to the cores that read
    (`loom.arch.routes.read_capacity`: the senders of its multicast `group`s over the `used` cores, every
    core for a unicast load); the reader's NoC where they tie or where the description does not place the
    workers on the chip's routers (a virtual grid, `loom.backend.placement`). A hand-written kernel picks
    it the same way (TTNN's matmul reads in0, whose senders hold one column, on NoC 1 and in1 on NoC 0)."""
    return _carrying_most(arch, "reader", lambda noc: read_capacity(arch, noc, tuple(used), tuple(group)))


def reading_group(transfer) -> tuple[int, ...]:
    """The shape of the core groups one core of which reads a load for all (a multicast's or a forwarding
    line's, `loom.mapping.candidates.Transfer`); `()` when every core reads its own."""
    return tuple(transfer.group) if transfer is not None and transfer.receivers > 1 else ()


def store_noc(arch: Arch, used: tuple[int, ...]) -> int:
    """The NoC a core's DRAM stores take: the one that carries most from the `used` cores to the banks;
    the writer's NoC where they tie or the workers are not on the chip's routers."""
    return _carrying_most(arch, "writer", lambda noc: dram_capacity(arch, noc, "write", tuple(used)))


def _carrying_most(arch: Arch, engine: str, capacity) -> int:
    """The NoC with the larger `capacity(noc)`; `engine`'s own where they tie, where there is one NoC or
    where the workers are not on the chip's routers."""
    home = engine_noc(engine, arch.noc.count)
    if arch.noc.count < 2 or arch.noc.routers is None:
        return home
    return max((home, 1 - home), key=capacity)


MATMUL_ENGINE_NOCS = {"reader": 1, "writer": 0}
"""The NoCs of TTNN's matmul kernels, which choose their own: the in0 reader (activations) on NoC 1 and
the in1 reader and output writer on NoC 0 (`in0_noc = preferred_noc_for_dram_write`, `in1_noc =
preferred_noc_for_dram_read` in ttnn's matmul multicast program factories); a `Program.engine_nocs`."""


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
