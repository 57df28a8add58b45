"""Data-movement and semaphore instructions: what each transfer reserves and when it lands.

Per transfer kind (resources as in noc.py; `issue` = `noc.transfer_issue_cycles` of RISC time
per NoC command, the role continues after issuing):
- `DramRead`: one command per tile; the block's tiles are grouped by bank; each bank's share
  queues on that bank, on its (bank, core) stream at `rates.dram_read`, on the links from the
  bank to the core (on the role's NoC) and on the core's ingress port. Done
  `dram.read_latency_cycles` (the fixed round trip) after the last share and the last issue.
- `DramWrite`: the same towards the banks ((core, bank) stream at `rates.dram_write`, egress
  port), done `dram.write_latency_cycles` (until acknowledged) later.
- `Write` (L1 -> L1): one command; (sender, receiver) stream at `rates.core_to_core`, sender
  egress, the route's links, receiver ingress; latency `2 * niu + hops * hop_latency`.
- `Multicast`: one command, one injection: the sender's multicast stream at
  `rates.multicast_linked` (or `rates.multicast` when not linked) and egress port, each link of
  the multicast tree once; latency to the farthest destination.
- `RemoteRead` (L1 <- L1): (source, reader) stream at `rates.core_from_core`, source egress, the
  response route's links, reader ingress; latency of the request and the response.
- Remote semaphore set/increment: one command and latency only (4-byte messages travel on
  their own virtual channel and are not queued behind data), delivered no earlier than every
  transfer the role issued before it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from loom.backend.program import (
    DramRead,
    DramWrite,
    Multicast,
    ProgramError,
    RemoteRead,
    SemInc,
    SemSet,
    Write,
)
from loom.sim.data import quantize

if TYPE_CHECKING:
    from loom.sim.engine import CBState, CoreState, Role


class MovementMixin:
    """Handlers for data-movement and semaphore instructions (mixed into `Simulator`)."""

    # --- helpers ------------------------------------------------------------------------------

    def _where(self: Any, role: Role, ins: object) -> str:
        return f"core {role.core.coord} {role.kind}, {type(ins).__name__}"

    def _core_at(self: Any, coord: tuple[int, ...], role: Role, ins: object) -> CoreState:
        core = self.cores.get(coord)
        if core is None:
            raise ProgramError(f"{self._where(role, ins)}: expected a participating core, found {coord}")
        return core

    def _remote_cb(self: Any, core: CoreState, name: str, role: Role, ins: object) -> CBState:
        cb = core.cbs.get(name)
        if cb is None:
            raise ProgramError(f"{self._where(role, ins)}: expected CB '{name}' on destination core "
                               f"{core.coord}, found only {', '.join(core.cbs) or 'none'}")
        return cb

    def _need_free(self: Any, cb: CBState, tiles: int, role: Role, ins: object, core: CoreState) -> None:
        free = cb.cap - (cb.head - cb.popped)
        if tiles > free:
            raise ProgramError(f"{self._where(role, ins)}: writes {tiles} tiles into the back of CB "
                               f"'{cb.name}' on core {core.coord}, expected at most its {free} free tiles "
                               f"(missing CbReserve or handshake?)")

    def _need_visible(self: Any, cb: CBState, tiles: int, role: Role, ins: object, core: CoreState) -> None:
        visible = cb.pushed - cb.popped
        if tiles > visible:
            raise ProgramError(f"{self._where(role, ins)}: reads {tiles} tiles from the front of CB "
                               f"'{cb.name}' on core {core.coord}, expected at most its {visible} visible "
                               f"tiles (missing CbWait?)")

    def _source(self: Any, role: Role, ins: Any, n: int) -> tuple[CBState, int]:
        """The local CB region a write or multicast sends from: (cb, first absolute tile)."""
        cb = role.core.cbs[ins.cb]
        off = ins.offset.eval(role.env)
        if ins.src == "back":
            self._need_free(cb, off + n, role, ins, role.core)
            return cb, cb.head + off
        self._need_visible(cb, off + n, role, ins, role.core)
        return cb, cb.popped + off

    @staticmethod
    def _take(cb: CBState, first: int, n: int) -> np.ndarray:
        return cb.data[(first + np.arange(n)) % cb.cap].copy()

    def _land(self: Any, arg: tuple[CBState, int, np.ndarray]) -> None:
        cb, first, tiles = arg
        cb.data[(first + np.arange(len(tiles))) % cb.cap] = tiles

    def _done(self: Any, role: Role, done: float, kind: str) -> None:
        """Record a transfer that lands at `done`: a "read", a "dram write" or a "peer" write."""
        if kind == "read":
            role.reads_out = max(role.reads_out, done)
        else:
            role.writes_out = max(role.writes_out, done)
            if kind == "peer":
                role.peer_out = max(role.peer_out, done)

    def _trace(self: Any, role: Role, name: str, issue_end: float, done: float) -> None:
        self.tracer.slice(role.core.index, role.thread, name, self.now, issue_end, "issue")
        self.tracer.transfer(role.core.index, role.thread, name, self.now, done)

    # --- DRAM ---------------------------------------------------------------------------------

    def _dram_read(self: Any, role: Role, ins: DramRead) -> float:
        core, env, fab = role.core, role.env, self.fabric
        t = self.tensors[ins.tensor]
        rows, cols = ins.rows, ins.cols
        ins_index = [a.eval(env) for a in ins.index]
        at, rows_in, cols_in, skip = t.inside(ins_index, rows, cols) if ins.clip else (ins_index, rows, cols, (0, 0))
        start = t.start(at, rows_in, cols_in, self._where(role, ins)) if rows_in and cols_in else None
        n = rows * cols
        cb = core.cbs[ins.cb]
        off = ins.offset.eval(env)
        self._need_free(cb, off + n, role, ins, core)
        noc = role.noc if ins.noc is None else ins.noc
        now = self.now
        banks = fab.arch.dram.banks
        port, pcost = fab.ingress(core.node, noc), fab.cost["ingress"]
        scost, bcost = fab.cost["dram_read"], fab.bank_cost
        done = now
        moved, per_bank = t.moved(at, rows_in, cols_in, banks) if start is not None else (0, ())
        for bank, count in per_bank:
            nbytes = count * t.dram_tile_bytes
            bnode = fab.bank_nodes[noc][bank]
            links = fab.route(noc, bnode, core.node)[0]
            f = fab.reserve(now, links, fab.flits(nbytes), (
                (fab.bank_base + bank, nbytes * bcost),
                (fab.stream("dram read", bnode, core.node, noc), nbytes * scost), (port, nbytes * pcost)))
            if f > done:
                done = f
        issue_end = now + moved * self.issue
        done = max(done, issue_end) + (self.arch.dram.read_latency_cycles if moved else 0)
        self._done(role, done, "read")
        self.read_bytes[t.name] += moved * t.dram_tile_bytes
        self.read_tiles[t.name] += moved
        if self.functional:
            tiles = t.data[t.block_ids(start, rows_in, cols_in)] if start is not None else None
            if ins.clip:  # the tiles outside the tensor are zeros
                whole = np.zeros((rows, cols, *t.data.shape[1:]), np.float32)
                if tiles is not None:
                    whole[skip[0]:skip[0] + rows_in, skip[1]:skip[1] + cols_in] = tiles.reshape(
                        rows_in, cols_in, *t.data.shape[1:])
                tiles = whole.reshape(n, *t.data.shape[1:])
            self.schedule(done, self._land, (cb, cb.head + off, tiles))
        if self.tracer:
            self._trace(role, f"read {t.name} {rows}x{cols}", issue_end, done)
        return issue_end

    def _dram_write(self: Any, role: Role, ins: DramWrite) -> float:
        core, env, fab = role.core, role.env, self.fabric
        t = self.tensors[ins.tensor]
        rows, cols = ins.rows, ins.cols
        ins_index = [a.eval(env) for a in ins.index]
        start = t.start(ins_index, rows, cols, self._where(role, ins))
        n = rows * cols
        cb = core.cbs[ins.cb]
        off = ins.offset.eval(env)
        self._need_visible(cb, off + n, role, ins, core)
        noc = role.noc if ins.noc is None else ins.noc
        now = self.now
        banks = fab.arch.dram.banks
        port, pcost = fab.egress(core.node, noc), fab.cost["egress"]
        scost, bcost = fab.cost["dram_write"], fab.bank_cost
        done = now
        moved, per_bank = t.moved(ins_index, rows, cols, banks)
        for bank, count in per_bank:
            nbytes = count * t.dram_tile_bytes
            bnode = fab.bank_nodes[noc][bank]
            links = fab.route(noc, core.node, bnode)[0]
            f = fab.reserve(now, links, fab.flits(nbytes), (
                (port, nbytes * pcost), (fab.stream("dram write", core.node, bnode, noc), nbytes * scost),
                (fab.bank_base + bank, nbytes * bcost)))
            if f > done:
                done = f
        issue_end = now + moved * self.issue
        done = max(done, issue_end) + (self.arch.dram.write_latency_cycles if moved else 0)
        self._done(role, done, "dram write")
        self.write_bytes[t.name] += moved * t.dram_tile_bytes
        self.write_tiles[t.name] += moved
        if self.functional:
            t.data[t.block_ids(start, rows, cols)] = quantize(self._take(cb, cb.popped + off, n), t.dtype)
        if self.tracer:
            self._trace(role, f"write {t.name} {rows}x{cols}", issue_end, done)
        return issue_end

    # --- core to core -------------------------------------------------------------------------

    def _write(self: Any, role: Role, ins: Write) -> float:
        core, env, fab = role.core, role.env, self.fabric
        dst = self._core_at(tuple(a.eval(env) for a in ins.dst), role, ins)
        src_cb = core.cbs[ins.cb]
        n = ins.tiles or src_cb.block
        cb, first = self._source(role, ins, n)
        dcb = self._remote_cb(dst, ins.dst_cb or ins.cb, role, ins)
        doff = ins.dst_offset.eval(env)
        self._need_free(dcb, doff + n, role, ins, dst)
        noc = role.noc if ins.noc is None else ins.noc
        nbytes = n * self.arch.dtypes.tile_bytes[cb.dtype]
        links, hops = fab.route(noc, core.node, dst.node)
        now = self.now
        cost = fab.cost
        f = fab.reserve(now, links, fab.flits(nbytes), (
            (fab.stream("write", core.node, dst.node, noc), nbytes * cost["write"]),
            (fab.egress(core.node, noc), nbytes * cost["egress"]),
            (fab.ingress(dst.node, noc), nbytes * cost["ingress"])))
        issue_end = now + self.issue
        done = max(f, issue_end) + 2 * fab.niu + hops * fab.hop
        self._done(role, done, "peer")
        if self.functional:
            self.schedule(done, self._land, (dcb, dcb.head + doff, self._take(cb, first, n)))
        if self.tracer:
            self._trace(role, f"write {ins.cb} -> {dst.coord}", issue_end, done)
        return issue_end

    def _rect(self: Any, role: Role, ins: Any, lo: tuple, hi: tuple) -> list[CoreState]:
        env = role.env
        a = tuple(x.eval(env) for x in lo)
        b = tuple(x.eval(env) for x in hi)
        if any(x > y for x, y in zip(a, b)):
            raise ProgramError(f"{self._where(role, ins)}: expected lo <= hi in every dimension, "
                               f"found {a}..{b}")
        shape = ("row" if len(a) == 1 or a[1] == b[1] else "column" if a[0] == b[0] else "rect")
        if shape not in self.arch.noc.multicast and not (len(a) > 1 and a == b):
            raise ProgramError(f"{self._where(role, ins)}: a {shape} multicast {a}..{b}; expected one of "
                               f"the shapes {self.arch.name} supports ({', '.join(self.arch.noc.multicast)})")
        if len(a) == 1:
            coords = [(x,) for x in range(a[0], b[0] + 1)]
        else:
            coords = [(x, y) for y in range(a[1], b[1] + 1) for x in range(a[0], b[0] + 1)]
        return [self._core_at(c, role, ins) for c in coords]

    def _multicast(self: Any, role: Role, ins: Multicast) -> float:
        core, env, fab = role.core, role.env, self.fabric
        dests = [d for d in self._rect(role, ins, ins.lo, ins.hi) if d is not core or ins.loopback]
        src_cb = core.cbs[ins.cb]
        n = ins.tiles or src_cb.block
        cb, first = self._source(role, ins, n)
        doff = ins.dst_offset.eval(env)
        name = ins.dst_cb or ins.cb
        dcbs = [self._remote_cb(d, name, role, ins) for d in dests]
        for d, dcb in zip(dests, dcbs):
            self._need_free(dcb, doff + n, role, ins, d)
        noc = role.noc if ins.noc is None else ins.noc
        nbytes = n * self.arch.dtypes.tile_bytes[cb.dtype]
        links, depth = fab.tree(noc, core.node, tuple(d.node for d in dests if d is not core))
        now = self.now
        kind = "mcast_linked" if ins.linked else "mcast"
        f = fab.reserve(now, links, fab.flits(nbytes), (
            (fab.stream(kind, core.node, core.node, noc), nbytes * fab.cost[kind]),
            (fab.egress(core.node, noc), nbytes * fab.cost["egress"])))
        issue_end = now + self.issue
        done = max(f, issue_end) + 2 * fab.niu + depth * fab.hop
        self._done(role, done, "peer")
        if self.functional:
            tiles = self._take(cb, first, n)
            for dcb in dcbs:
                self.schedule(done, self._land, (dcb, dcb.head + doff, tiles))
        if self.tracer:
            self._trace(role, f"mcast {ins.cb} -> {len(dests)} cores", issue_end, done)
        return issue_end

    def _remote_read(self: Any, role: Role, ins: RemoteRead) -> float:
        core, env, fab = role.core, role.env, self.fabric
        src = self._core_at(tuple(a.eval(env) for a in ins.src), role, ins)
        scb = self._remote_cb(src, ins.src_cb, role, ins)
        n = ins.tiles or scb.block
        off = ins.offset.eval(env)
        self._need_visible(scb, off + n, role, ins, src)
        cb = core.cbs[ins.cb]
        doff = ins.dst_offset.eval(env)
        self._need_free(cb, doff + n, role, ins, core)
        noc = role.noc if ins.noc is None else ins.noc
        nbytes = n * self.arch.dtypes.tile_bytes[scb.dtype]
        links, hops = fab.route(noc, src.node, core.node)
        back = fab.route(noc, core.node, src.node)[1]
        now = self.now
        cost = fab.cost
        f = fab.reserve(now, links, fab.flits(nbytes), (
            (fab.stream("read", src.node, core.node, noc), nbytes * cost["read"]),
            (fab.egress(src.node, noc), nbytes * cost["egress"]),
            (fab.ingress(core.node, noc), nbytes * cost["ingress"])))
        issue_end = now + self.issue
        done = max(f, issue_end) + 4 * fab.niu + (hops + back) * fab.hop
        self._done(role, done, "read")
        if self.functional:
            self.schedule(done, self._land, (cb, cb.head + doff, self._take(scb, scb.popped + off, n)))
        if self.tracer:
            self._trace(role, f"read {src.coord}:{ins.src_cb}", issue_end, done)
        return issue_end

    # --- semaphores ---------------------------------------------------------------------------

    def _sem_message(self: Any, role: Role, ins: Any, targets: list[CoreState], value: int,
                     add: bool) -> float:
        fab = self.fabric
        noc = role.noc if ins.noc is None else ins.noc
        issue_end = self.now + self.issue
        for dst in targets:
            sem = dst.sems.get(ins.sem)
            if sem is None:
                raise ProgramError(f"{self._where(role, ins)}: expected semaphore '{ins.sem}' on core "
                                   f"{dst.coord}, found only {', '.join(dst.sems) or 'none'}")
            hops = fab.route(noc, role.core.node, dst.node)[1]
            at = max(issue_end + 2 * fab.niu + hops * fab.hop, role.peer_out)
            self.schedule(at, self.sem_update, (sem, value, add))
        return issue_end

    def _sem_set(self: Any, role: Role, ins: SemSet) -> Any:
        if ins.core is None and ins.lo is None:
            self.sem_update((role.core.sems[ins.sem], ins.value, False))
            return None
        if ins.lo is not None:
            targets = [d for d in self._rect(role, ins, ins.lo, ins.hi) if d is not role.core]
        else:
            targets = [self._core_at(tuple(a.eval(role.env) for a in ins.core), role, ins)]
        return self._sem_message(role, ins, targets, ins.value, False)

    def _sem_inc(self: Any, role: Role, ins: SemInc) -> Any:
        if ins.core is None:
            self.sem_update((role.core.sems[ins.sem], ins.amount, True))
            return None
        target = self._core_at(tuple(a.eval(role.env) for a in ins.core), role, ins)
        return self._sem_message(role, ins, [target], ins.amount, True)
