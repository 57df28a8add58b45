"""The chip's routers (`noc.routers`, `noc.worker_routers`, `dram.bank_positions` as router coordinates):
workers sit on the routers tt-metal's SOC descriptors name, with DRAM (and Ethernet) routers between them,
and routes, the model's DRAM link shares and the simulator's fabric all run on that torus."""

from __future__ import annotations

from loom.arch import load_arch
from loom.arch.routes import bank_positions, routes
from loom.sim.noc import Fabric


def test_wormhole_workers_sit_between_the_dram_and_ethernet_routers():
    wh = load_arch("wormhole_n150")
    at = routes(wh).at
    assert at((0, 0)) == (1, 1) and at((4, 0)) == (6, 1) and at((7, 7)) == (9, 9)  # column 5: DRAM, row 6: Ethernet
    assert routes(wh).size == [10, 12]
    # NoC 0 from bank 0 (router 0, 11) to core (0, 0): one hop +x, then +y around the torus (11 -> 0 -> 1)
    assert routes(wh).route(0, (0, 11), at((0, 0))) == [((0, 11), 0), ((1, 11), 1), ((1, 0), 1)]


def test_blackhole_reaches_each_bank_at_another_endpoint_on_noc_1():
    bh = load_arch("blackhole_p150")
    assert bank_positions(bh, 0)[0] == (0, 11) and bank_positions(bh, 1)[0] == (0, 1)
    fabric = Fabric(bh)
    assert fabric.bank_nodes[0][0] != fabric.bank_nodes[1][0]
    assert fabric.coord(fabric.bank_nodes[1][0]) == (0, 1)
    assert fabric.coord(fabric.node((12, 9))) == (15, 11)  # the 13th worker column is router column 15


def test_without_routers_the_workers_are_the_grid_and_banks_sit_beside_it():
    ring = load_arch("ring32")
    assert ring.noc.routers is None and routes(ring).at((5,)) == (5,)
    fabric = Fabric(ring)
    assert [fabric.coord(n) for n in fabric.bank_nodes[0]] == [tuple(p) for p in ring.dram.bank_positions]
