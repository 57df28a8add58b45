"""The NoC's routes, from the architecture description: which links a transfer crosses, and what that
means for DRAM traffic.

The router grid is the worker grid extended by the positions of the DRAM endpoints
(`dram.bank_positions` may lie one step outside it), wrapped into a torus (a ring for 1-D). Each
NoC is unidirectional per axis, as on Tenstorrent chips: NoC 0 routes +x first, then +y ("right,
then down"); NoC 1 routes -y first, then -x (the order tt-npe, Tenstorrent's NoC estimator, uses for
Wormhole: tenstorrent/tt-npe device_models/wormhole_b0.hpp `unicastRoute`).

`dram_capacity` is what that topology allows DRAM traffic: every core reading (or writing) equal
shares of interleaved tiles from every bank, the link that the most (bank, core) routes cross
limits the whole chip, so one NoC carries at most `routes / routes on that link` link-widths;
`shared_links` gives each link's share of reads and of writes, for a stage that does both. Both are
properties of the grid, the bank positions and the cores a candidate uses; the model prices DRAM
stages with them and the per-core programs spread their reads over the NoCs by them
(`loom.mapping.engines.spread_reads`).
"""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from loom.arch import Arch

Link = tuple[tuple[int, ...], int]
"""A link of one NoC: the router it leaves and the axis it runs along."""


class Routes:
    """Dimension-ordered routes on the torus of one architecture's routers."""

    def __init__(self, dims: tuple[int, ...], banks: tuple[tuple[int, ...], ...]):
        nd = len(dims)
        self.lo = [min(0, *(p[d] for p in banks)) for d in range(nd)]
        hi = [max(dims[d] - 1, *(p[d] for p in banks)) for d in range(nd)]
        self.size = [hi[d] - self.lo[d] + 1 for d in range(nd)]

    def route(self, noc: int, src: tuple[int, ...], dst: tuple[int, ...]) -> list[Link]:
        """The links (in order) from router `src` to router `dst` on `noc`."""
        cur = list(src)
        order = range(len(cur)) if noc == 0 else reversed(range(len(cur)))
        step = 1 if noc == 0 else -1
        links = []
        for axis in order:
            n, lo = self.size[axis], self.lo[axis]
            for _ in range(((dst[axis] - cur[axis]) * step) % n):
                links.append((tuple(cur), axis))
                cur[axis] = (cur[axis] - lo + step) % n + lo
        return links


def routes(arch: Arch) -> Routes:
    return _routes(tuple(arch.grid.dims), _banks(arch))


def dram_capacity(arch: Arch, noc: int, direction: Literal["read", "write"],
                  used: tuple[int, ...] | None = None) -> float:
    """Bytes per cycle NoC `noc` carries between the DRAM banks and the worker cores when every core
    reads (writes) equal shares from (to) every bank: link width x routes / routes on the busiest link.
    `used`: the cores are the first `used[d]` along each grid dimension (a candidate's occupancy), not all."""
    dims = tuple(arch.grid.dims)
    return _capacity(dims, _banks(arch), noc, direction, tuple(used or dims)) * arch.noc.link_bytes_per_cycle


def shared_links(arch: Arch, noc: int, used: tuple[int, ...] | None = None) -> tuple[tuple[float, float], ...]:
    """The links of NoC `noc` that DRAM reads and writes share, as (a, b): a byte of chip-wide reads
    (every core reading equal shares from every bank) puts `a` bytes on the link, a byte of writes `b`
    (so it carries a x reads + b x writes). Only the links that are the busiest for some mix of reads
    and writes (the upper hull of the (a, b))."""
    dims = tuple(arch.grid.dims)
    return _shared(dims, _banks(arch), noc, tuple(used or dims))


def _banks(arch: Arch) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(p) for p in arch.dram.bank_positions)


@cache
def _routes(dims: tuple[int, ...], banks: tuple[tuple[int, ...], ...]) -> Routes:
    return Routes(dims, banks)


@cache
def _shared(dims: tuple[int, ...], banks: tuple[tuple[int, ...], ...], noc: int,
            used: tuple[int, ...]) -> tuple[tuple[float, float], ...]:
    share = {direction: _loads(dims, banks, noc, direction, used) for direction in ("read", "write")}
    pairs = sorted({(share["read"].get(link, 0.0), share["write"].get(link, 0.0))
                    for link in share["read"].keys() | share["write"].keys()}, reverse=True)
    kept: list[tuple[float, float]] = []
    for point in pairs:  # by a, largest first: the upper hull, the links some mix of reads and writes loads most
        if kept and point[1] <= kept[-1][1]:
            continue  # no more writes than a link with more reads
        while len(kept) >= 2 and _below(kept[-2], kept[-1], point):
            kept.pop()
        kept.append(point)
    return tuple(kept)


def _below(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float]) -> bool:
    """Whether q lies on or under the segment p-r (never the busiest link for any reads and writes)."""
    return (r[0] - p[0]) * (q[1] - p[1]) - (r[1] - p[1]) * (q[0] - p[0]) >= 0


def _loads(dims: tuple[int, ...], banks: tuple[tuple[int, ...], ...], noc: int, direction: str,
           used: tuple[int, ...]) -> dict[Link, float]:
    """Each link's share of all-to-all traffic between the banks and the used cores (bytes per byte)."""
    topology = _routes(dims, banks)
    load: Counter[Link] = Counter()
    pairs = 0
    for bank in banks:
        for core in itertools.product(*[range(d) for d in used]):
            src, dst = (bank, core) if direction == "read" else (core, bank)
            load.update(topology.route(noc, src, dst))
            pairs += 1
    return {link: n / pairs for link, n in load.items()}


@cache
def _capacity(dims: tuple[int, ...], banks: tuple[tuple[int, ...], ...], noc: int, direction: str,
              used: tuple[int, ...] | None = None) -> float:
    """Routes per route crossing the busiest link (link widths the NoC carries), for all-to-all traffic
    between the banks and the cores of the first `used` rows and columns (all of `dims` by default)."""
    loads = _loads(dims, banks, noc, direction, used or dims)
    return 1 / max(loads.values()) if loads else float("inf")
