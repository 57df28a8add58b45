"""The on-chip fabric: torus/ring topology, dimension-ordered routes, multicast trees, and the
shared resources (NoC links, DRAM banks, per-core NoC ports) that transfers reserve.

Topology (`loom.arch.routes`). The routers form a torus (a ring for 1-D): the chip's router grid
with workers, DRAM and other cores where the description places them, or the worker grid extended by
the positions of the DRAM endpoints; NoC 0 routes +x first, then +y, NoC 1
-y first, then -x, so a NoC 1 route from b to a retraces the NoC 0 route from a to b. A
multicast follows the union of the dimension-ordered routes to its destinations, which is a
tree: every tree link carries the data once.

Contention model ("work reservation with a shared-rate estimate"). Every resource r (a link
of one NoC, a DRAM bank, a core's ingress or egress port on one NoC, a one-to-one stream)
keeps `free[r]`, the time at which all work queued on it so far would be done (its tail), and
the tails of the transfers still ahead. A transfer issued at t0 with `work_r` on r adds its work
to the tail, `free[r] = max(t0, free[r]) + work_r` (so the total work on every resource is
conserved and k equal transfers sharing one link take k times as long), and finishes on r at
`t0 + work_r + min(backlog, n * work_r)`: `backlog = free[r] - t0` is the queued work and n the
number of transfers still ahead of it. That is processor sharing as seen by the newcomer
(arbitration interleaves packets, so a small transfer behind n large ones gets a 1/(n+1) share
instead of waiting for all of them) and plain FIFO when the transfers ahead are small. Transfers
already reserved are not slowed down by later ones, which is the approximation. A transfer
completes at `max_r finish_r + latency`: it is as slow as its most loaded resource.
Work is
- link: flits, one per cycle: `ceil(bytes / link_bytes_per_cycle)` data flits plus one header
  flit per packet of at most `max_packet_bytes` (transfers are split into packets that way),
- DRAM bank: `bytes / (dram.bandwidth_bytes_per_cycle / banks * dram.efficiency)`,
- ports: a core's ingress and egress port on each NoC, at `bytes / rates.gather_all` (the most
  one core was measured to receive, 1 <- all) and `bytes / rates.scatter_all` (the most it was
  measured to send by unicast, 1 -> all),
- streams: the measured one-to-one primitives cap what one stream between two endpoints moves:
  a (bank, core) pair at `rates.dram_read` / `rates.dram_write`, a (core, core) pair at
  `rates.core_to_core` (write) / `rates.core_from_core` (read), a multicast sender at
  `rates.multicast_linked` or `rates.multicast`.
So each measured per-core number constrains the resource its microbenchmark exercised: a core
reading one bank gets `rates.dram_read`; reading interleaved tiles from every bank it gets up to
its ingress port. The per-core microbenchmarks reproduce the measured numbers by construction,
up to latency and issue overheads (benchmarks/calibrate.py); the GEMM figures are the
independent check.
The model is cheap: O(path length) per transfer, independent of its size.
"""

from __future__ import annotations

import math
from collections import deque
from functools import lru_cache
from typing import TYPE_CHECKING

from loom.arch.routes import bank_positions, routes

if TYPE_CHECKING:
    from loom.arch import Arch


class Fabric:
    """Routes and resource reservations for one architecture."""

    def __init__(self, arch: Arch):
        self.arch = arch
        dims = list(arch.grid.dims)
        self.ndims = nd = len(dims)
        self.routes = routes(arch)  # the torus of workers and DRAM endpoints, dimension-ordered
        self.lo, self.size = self.routes.lo, self.routes.size
        self.stride = [1] * nd
        for d in range(1, nd):
            self.stride[d] = self.stride[d - 1] * self.size[d - 1]
        self.nnodes = math.prod(self.size)
        self.nocs = arch.noc.count
        self.nlinks = self.nocs * self.nnodes * nd
        nports = self.nocs * self.nnodes
        self.bank_base = self.nlinks
        self.egress_base = self.bank_base + arch.dram.banks
        self.ingress_base = self.egress_base + nports
        self.stream_base = self.ingress_base + nports
        self.free = [0.0] * self.stream_base
        self.busy = [0.0] * self.stream_base
        self.ahead: list[deque[float]] = [deque() for _ in range(self.stream_base)]
        self.streams: dict[tuple, int] = {}
        self.stream_names: list[str] = []
        self.bank_nodes = [[self.router_node(p) for p in bank_positions(arch, noc)] for noc in range(arch.noc.count)]
        """Per NoC, the router of each bank's endpoint on it."""
        self.flit = arch.noc.link_bytes_per_cycle
        self.packet = arch.noc.max_packet_bytes
        self.hop = arch.noc.hop_latency_cycles
        self.niu = arch.noc.niu_latency_cycles
        bank_rate = arch.dram.bandwidth_bytes_per_cycle / arch.dram.banks * arch.dram.efficiency
        self.bank_cost = 1.0 / bank_rate
        r = arch.rates
        self.cost = {"dram_read": 1.0 / r.dram_read, "dram_write": 1.0 / r.dram_write,
                     "write": 1.0 / r.core_to_core, "read": 1.0 / r.core_from_core,
                     "mcast": 1.0 / r.multicast, "mcast_linked": 1.0 / r.multicast_linked,
                     "ingress": 1.0 / r.gather_all, "egress": 1.0 / r.scatter_all}
        self.route = lru_cache(maxsize=None)(self._route)
        self.tree = lru_cache(maxsize=None)(self._tree)

    # --- topology -------------------------------------------------------------------------

    def node(self, core: tuple[int, ...]) -> int:
        """Router index of the worker at grid coordinate `core`."""
        return self.router_node(self.routes.at(core))

    def router_node(self, coord: tuple[int, ...]) -> int:
        """Router index of a router coordinate (a worker's `routes.at`, a DRAM endpoint)."""
        return sum((c - lo) * s for c, lo, s in zip(coord, self.lo, self.stride))

    def coord(self, node: int) -> tuple[int, ...]:
        """Router coordinate of router `node`."""
        return tuple((node // s) % n + lo for s, n, lo in zip(self.stride, self.size, self.lo))

    def link_name(self, link: int) -> str:
        """A readable name for link id `link` (`NoC0 (2, 3) +x`)."""
        noc, rest = divmod(link, self.nnodes * self.ndims)
        node, axis = divmod(rest, self.ndims)
        sign = "+" if noc == 0 else "-"
        return f"NoC{noc} {self.coord(node)} {sign}{'xy'[axis]}"

    def resource_name(self, rid: int) -> str:
        """A readable name for any resource id."""
        if rid < self.bank_base:
            return self.link_name(rid)
        if rid < self.egress_base:
            return f"DRAM bank {rid - self.bank_base}"
        if rid >= self.stream_base:
            return self.stream_names[rid - self.stream_base]
        egress = rid < self.ingress_base
        base, kind = (self.egress_base, "egress") if egress else (self.ingress_base, "ingress")
        noc, node = divmod(rid - base, self.nnodes)
        return f"{self.coord(node)} NoC{noc} {kind} port"

    def _route(self, noc: int, src: int, dst: int) -> tuple[tuple[int, ...], int]:
        """Links (in order) from router `src` to router `dst` on `noc`, and the hop count."""
        base = noc * self.nnodes * self.ndims
        links = tuple(base + self.router_node(at) * self.ndims + axis
                      for at, axis in self.routes.route(noc, self.coord(src), self.coord(dst)))
        return links, len(links)

    def _tree(self, noc: int, src: int, dests: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
        """Links of the multicast tree from `src` to `dests` (each once) and the deepest hop count."""
        links: dict[int, None] = {}
        depth = 0
        for d in dests:
            path, hops = self.route(noc, src, d)
            links.update(dict.fromkeys(path))
            depth = max(depth, hops)
        return tuple(links), depth

    # --- reservations ----------------------------------------------------------------------

    def flits(self, nbytes: float) -> float:
        """Link cycles to move `nbytes`: data flits plus one header flit per packet."""
        return math.ceil(nbytes / self.flit) + math.ceil(nbytes / self.packet)

    def reserve(self, t0: float, links: tuple[int, ...], link_work: float,
                others: tuple[tuple[int, float], ...]) -> float:
        """Queue `link_work` on each of `links` and `(resource, work)` pairs issued at `t0`;
        returns the time the transfer is done on all of them."""
        free, busy, ahead = self.free, self.busy, self.ahead
        end = t0
        for rid, work in (*((r, link_work) for r in links), *others):
            q = ahead[rid]
            while q and q[0] <= t0:
                q.popleft()
            s = free[rid]
            if s > t0:
                backlog = s - t0
                n_work = len(q) * work
                f = t0 + work + (backlog if backlog < n_work else n_work)
                tail = s + work
            else:
                f = tail = t0 + work
            free[rid] = tail
            q.append(tail)
            busy[rid] += work
            if f > end:
                end = f
        return end

    def egress(self, node: int, noc: int) -> int:
        """Resource id of a core's egress port on `noc`."""
        return self.egress_base + noc * self.nnodes + node

    def ingress(self, node: int, noc: int) -> int:
        """Resource id of a core's ingress port on `noc`."""
        return self.ingress_base + noc * self.nnodes + node

    def stream(self, kind: str, src: int, dst: int, noc: int) -> int:
        """Resource id of the one-to-one stream `kind` from router `src` to router `dst` on `noc`."""
        key = (kind, src, dst, noc)
        rid = self.streams.get(key)
        if rid is None:
            rid = self.streams[key] = len(self.free)
            self.free.append(0.0)
            self.busy.append(0.0)
            self.ahead.append(deque())
            self.stream_names.append(f"{kind} stream {self.coord(src)} -> {self.coord(dst)} NoC{noc}")
        return rid

    def bank(self, bank: int) -> int:
        """Resource id of DRAM bank `bank`."""
        return self.bank_base + bank


@lru_cache(maxsize=65536)
def bank_counts(start_mod: int, rows: int, cols: int, row_stride_mod: int,
                banks: int) -> tuple[tuple[int, int], ...]:
    """Tiles per DRAM bank of a `rows x cols` block whose first tile id is `start_mod` (mod banks)
    and whose rows are `row_stride_mod` (mod banks) tile ids apart; interleaving puts tile i in
    bank i mod banks. Returns `(bank, count)` pairs in order of first touch."""
    counts: dict[int, int] = {}
    full, rest = divmod(cols, banks)
    for r in range(rows):
        s = (start_mod + r * row_stride_mod) % banks
        for k in range(banks if full else rest):
            b = (s + k) % banks
            counts[b] = counts.get(b, 0) + full + (1 if k < rest else 0)
    return tuple(counts.items())
