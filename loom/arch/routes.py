"""The NoC's routes, from the architecture description: which links a transfer crosses, and what that
means for DRAM traffic.

The routers form a torus (a ring for 1-D): where the description gives it (`noc.routers`), the
chip's router grid with the workers on the routers `noc.worker_routers` names and the DRAM endpoints at
their router coordinates (DRAM, Ethernet and other cores sit between worker columns and rows, as in
tt-metal's SOC descriptors); else the worker grid extended by the positions of the DRAM endpoints
(`dram.bank_positions` may lie one step outside it). Routes run between router coordinates; `at` places
a worker. Each
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

Coord = tuple[int, ...]
Link = tuple[Coord, int]
"""A link of one NoC: the router it leaves and the axis it runs along."""
Placement = tuple[tuple[int, ...], tuple[tuple[int, ...], ...]] | None
"""The router torus's extents and each worker line's routers (`noc.routers`, `noc.worker_routers`)."""


class Routes:
    """Dimension-ordered routes on the torus of one architecture's routers."""

    def __init__(self, dims: tuple[int, ...], banks: tuple[tuple[int, ...], ...], placement: Placement = None):
        nd = len(dims)
        self.banks, self._bank_links = banks, {}
        if placement is None:  # the worker grid extended by the banks
            self.lo = [min(0, *(p[d] for p in banks)) for d in range(nd)]
            hi = [max(dims[d] - 1, *(p[d] for p in banks)) for d in range(nd)]
            self.size = [hi[d] - self.lo[d] + 1 for d in range(nd)]
            self.lines = tuple(tuple(range(n)) for n in dims)
        else:
            routers, self.lines = placement
            self.lo, self.size = [0] * nd, list(routers)

    def bank_links(self, noc: int, direction: str, core: Coord) -> Counter[Link]:
        """How often the routes between `core` (a worker) and every bank cross each link of `noc`, reads
        from the banks or writes to them (`direction`); computed once per core."""
        key = (noc, direction, core)
        found = self._bank_links.get(key)
        if found is None:
            router, found = self.at(core), Counter()
            for bank in self.banks:
                found.update(self.route(noc, *((bank, router) if direction == "read" else (router, bank))))
            self._bank_links[key] = found
        return found

    def at(self, core: tuple[int, ...]) -> tuple[int, ...]:
        """The router of the worker at grid coordinate `core`."""
        return tuple(line[c] for line, c in zip(self.lines, core))

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
    return _routes(tuple(arch.grid.dims), bank_positions(arch, 0) + bank_positions(arch, 1), _placement(arch))


def dram_capacity(arch: Arch, noc: int, direction: Literal["read", "write"],
                  used: tuple[int, ...] | None = None) -> float:
    """Bytes per cycle NoC `noc` carries between the DRAM banks and the worker cores when every core
    reads (writes) equal shares from (to) every bank: link width x routes / routes on the busiest link.
    `used`: the cores are the first `used[d]` along each grid dimension (a candidate's occupancy), not all."""
    dims = tuple(arch.grid.dims)
    cores = senders(tuple(used or dims), ())
    return _capacity(dims, bank_positions(arch, noc), _placement(arch), noc, direction,
                     cores) * arch.noc.link_bytes_per_cycle


def shared_links(arch: Arch, noc: int, used: tuple[int, ...] | None = None,
                 groups: tuple[tuple[int, ...], ...] = ()) -> tuple[tuple[float, float], ...]:
    """The links of NoC `noc` that DRAM reads and writes share, as (a, b): a byte of chip-wide reads
    (the reading cores reading equal shares from every bank) puts `a` bytes on the link, a byte of
    writes (every used core writing equal shares to every bank) `b` (so it carries a x reads + b x
    writes). The reading cores are the senders of the multicast `groups` of the loads on the NoC
    (`senders`; every used core for none). Only the links that are the busiest for some mix of reads
    and writes (the upper hull of the (a, b))."""
    dims = tuple(arch.grid.dims)
    used = tuple(used or dims)
    readers = tuple(sorted({c for group in (groups or ((),)) for c in senders(used, group)}))
    return _shared(dims, bank_positions(arch, noc), _placement(arch), noc, readers, senders(used, ()))


def read_capacity(arch: Arch, noc: int, used: tuple[int, ...], group: tuple[int, ...] = ()) -> float:
    """Link widths NoC `noc` carries from the banks to the senders of `group`-shaped multicast groups
    over the first `used` cores (every one of them for no group), reading equal shares of every bank."""
    return _capacity(tuple(arch.grid.dims), bank_positions(arch, noc), _placement(arch), noc, "read",
                     senders(used, group))


@cache
def senders(used: tuple[int, ...], group: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The cores that read for multicast groups of shape `group` tiling the first `used` cores: each
    group's first (lowest) core; every core for no group (`()`)."""
    step = group or (1,) * len(used)
    return tuple(itertools.product(*[range(0, n, max(g, 1)) for n, g in zip(used, step)]))


def bank_positions(arch: Arch, noc: int) -> tuple[tuple[int, ...], ...]:
    """Where NoC `noc` reaches each bank (router coordinates)."""
    return _described(arch)[0][noc == 1]


def _described(arch: Arch) -> tuple[tuple, Placement]:
    """(bank positions on NoC 0 and NoC 1, the router placement) of `arch` as tuples, made once per
    description (the model asks for them for every load of every candidate)."""
    known = _DESCRIBED.get(id(arch))
    if known is None or known[0] is not arch:
        positions = tuple(tuple(tuple(p) for p in (which or arch.dram.bank_positions))
                          for which in (None, arch.dram.noc1_bank_positions))
        placement = None if arch.noc.routers is None else (
            tuple(arch.noc.routers), tuple(tuple(line) for line in arch.noc.worker_routers))
        if len(_DESCRIBED) > 64:
            _DESCRIBED.clear()
        known = _DESCRIBED[id(arch)] = (arch, (positions, placement))
    return known[1]


_DESCRIBED: dict[int, tuple] = {}  # id(arch) -> (arch, what `_described` made of it): the arch kept alive


def _placement(arch: Arch) -> Placement:
    return _described(arch)[1]


@cache
def _routes(dims: tuple[int, ...], banks: tuple[tuple[int, ...], ...], placement: Placement) -> Routes:
    return Routes(dims, banks, placement)


@cache
def _shared(dims: tuple[int, ...], banks: tuple[tuple[int, ...], ...], placement: Placement, noc: int,
            readers: tuple[Coord, ...], writers: tuple[Coord, ...]) -> tuple[tuple[float, float], ...]:
    share = {"read": _loads(dims, banks, placement, noc, "read", readers),
             "write": _loads(dims, banks, placement, noc, "write", writers)}
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


def _loads(dims: tuple[int, ...], banks: tuple[tuple[int, ...], ...], placement: Placement, noc: int,
           direction: str, cores: tuple[tuple[int, ...], ...]) -> dict[Link, float]:
    """Each link's share of all-to-all traffic between the banks and `cores` (bytes per byte)."""
    topology = _routes(dims, banks, placement)
    load: Counter[Link] = Counter()
    for core in cores:
        load.update(topology.bank_links(noc, direction, core))
    pairs = len(banks) * len(cores)
    return {link: n / pairs for link, n in load.items()}


@cache
def _capacity(dims: tuple[int, ...], banks: tuple[tuple[int, ...], ...], placement: Placement, noc: int,
              direction: str, cores: tuple[tuple[int, ...], ...]) -> float:
    """Routes per route crossing the busiest link (link widths the NoC carries), for all-to-all traffic
    between the banks and `cores`."""
    loads = _loads(dims, banks, placement, noc, direction, cores)
    return 1 / max(loads.values()) if loads else float("inf")
