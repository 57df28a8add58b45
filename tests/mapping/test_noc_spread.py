"""DRAM reads spread over both NoCs: what the topology lets each NoC carry (`loom.arch.routes`), the
rule that shares a pipe stage's reads between them (`loom.mapping.engines.spread_reads`), and the
per-core programs and model that follow it."""

from __future__ import annotations

import dataclasses

import pytest

import loom
from loom.arch import load_arch
from loom.arch.routes import Routes, _capacity, dram_capacity, senders, shared_links
from loom.backend import program as P
from loom.backend.split import build_program
from loom.kernel_file import load_kernel_file
from loom.mapping.candidates import enumerate_candidates
from loom.mapping.engines import Read, engine_noc, engine_positions, spread_reads
from loom.pipeline import compile as compile_kernel
from loom.run import run
from tests.conftest import EXAMPLES


def test_routes_go_one_axis_then_the_other_around_the_torus():
    routes = Routes((4, 3), ((-1, 0),))  # a 4 x 3 grid and one bank left of it: a 5 x 3 torus
    assert routes.route(0, (-1, 0), (1, 2)) == [((-1, 0), 0), ((0, 0), 0), ((1, 0), 1), ((1, 1), 1)]
    assert routes.route(1, (-1, 0), (1, 2)) == [((-1, 0), 1), ((-1, 2), 0), ((3, 2), 0), ((2, 2), 0)]  # wraps


def test_a_ring_carries_what_its_busiest_link_allows():
    # one bank at router 0 of a 4-router ring: reads to cores 1, 2, 3 all cross the link 0 -> 1
    cores = senders((4,), ())
    assert _capacity((4,), ((0,),), None, 0, "read", cores) == pytest.approx(4 / 3)
    assert _capacity((4,), ((0,),), None, 0, "write", cores) == pytest.approx(4 / 3)  # and writes the link 3 -> 0


def test_wormholes_reader_and_writer_nocs_leave_the_bank_columns_along_the_bank_rows():
    """TT-Metalium's reader reads on NoC 0 and its writer writes on NoC 1 (`engine_noc`). On Wormhole's
    routers (DRAM in columns 0 and 5) NoC 0 reads (+x first) and NoC 1 writes (-y first, then -x into
    the bank) cross the bank columns along the bank rows; the other way round they run along the columns."""
    wh = load_arch("wormhole_n150")
    link = wh.noc.link_bytes_per_cycle
    reader, writer = engine_noc("reader", 2), engine_noc("writer", 2)
    assert (reader, writer) == (0, 1)
    assert dram_capacity(wh, reader, "read") == pytest.approx(dram_capacity(wh, writer, "write")) == 8 * link
    assert dram_capacity(wh, writer, "read") == pytest.approx(dram_capacity(wh, reader, "write")) == 3 * link


def _reads_only(*capacity: float) -> tuple:
    """`shared_links` of NoCs whose one busiest link carries all their reads at `capacity` B/cycle."""
    return tuple(((1 / c, 0.0),) for c in capacity)


def test_the_busier_noc_gives_up_a_share_of_its_rows():
    k, v = Read(noc=1, chip_bytes=1.0, parts=16), Read(noc=0, chip_bytes=1.0, parts=16)
    moved = spread_reads([k, v], _reads_only(192.0, 122.9), (0.0, 0.0))
    assert moved[1] == 0 and moved[0] == 4  # NoC 0 should carry 61 % of 2: 0.22 of K's 16 rows move there
    on_noc0 = 1.0 + moved[0] / 16
    assert abs(on_noc0 / 192.0 - (2 - on_noc0) / 122.9) < 0.1 * (2 / 314.9)


def test_stores_on_the_writers_noc_keep_reads_off_the_links_they_load():
    wh = load_arch("wormhole_n150")
    links = tuple(shared_links(wh, noc) for noc in (0, 1))
    x = Read(noc=0, chip_bytes=1.0, parts=8)  # one input on the reader's NoC 0; an output half or as large
    alone, half, same = (spread_reads([x], links, (0.0, w)) for w in (0.0, 0.5, 1.0))
    assert alone == half == [2]  # a quarter of the rows: NoC 1's read links are its column links
    assert same == [0]  # NoC 1's links into the banks are as busy with the stores as NoC 0's with the reads
    assert max(links[1])[1] == 0 and max(links[1], key=lambda ab: ab[1])[0] > 0  # its write links carry reads too


@pytest.mark.parametrize("reads, capacity, expected", [
    ([Read(1, 1.0, 8)], (100.0,), [0]),  # one NoC: nothing to spread over
    ([Read(0, 1.0, 8)], (100.0, 100.0), [4]),  # all on NoC 0: half moves
    ([Read(0, 1.0, 8), Read(1, 1.0, 8)], (100.0, 100.0), [0, 0]),  # balanced already
    ([Read(1, 3.0, 1)], (300.0, 100.0), [1]),  # a single part: it moves whole
])
def test_spread_reads_cases(reads, capacity, expected):
    assert spread_reads(reads, _reads_only(*capacity), (0.0,) * len(capacity)) == expected


def test_flash_decode_reads_a_share_of_its_keys_and_values_on_noc_1_and_matches_torch():
    source = load_kernel_file(EXAMPLES / "flash_decode.py")
    shape = {"B": 2, "H": 4, "L": 1024, "D": 64}
    args = source.example_args(shape)
    compilation = compile_kernel(source.kernel, args, "wormhole_n150", shape=shape, block_sizes={"tile_n": 256})
    outcome = run(compilation, args, reference=source.reference, functional=True)
    assert outcome.check.ok, outcome.check
    reads = [i for g in outcome.program.groups for role in (g.reader, g.writer) for i in P.walk(role)
             if isinstance(i, P.DramRead)]
    # every load reads on NoC 0 (`read_noc`: named where the writer, on NoC 1, issues it: V) and a share
    # of K's and V's rows on NoC 1
    assert {(r.tensor, r.noc) for r in reads} == {("q", None), ("k", None), ("v", 0), ("k", 1), ("v", 1)}


def test_the_spread_knob_decides_and_a_schedule_without_it_reads_each_load_on_one_noc():
    """The solver turns a pipe's `spread` knob on where the NoC links at the banks bind; a schedule that
    leaves it out (TTNN's baselines) gets 0: each load then reads on one NoC."""
    source = load_kernel_file(EXAMPLES / "flash_decode.py")
    shape = {"B": 16, "H": 32, "L": 4096, "D": 64}
    args = source.example_args(shape, meta=True)
    compilation = compile_kernel(source.kernel, args, "wormhole_n150", shape=shape, block_sizes={"tile_n": 256})
    best = compilation.ranked[0]
    knobs = [k for k in best.model.knobs if k.kind == "spread"]
    assert knobs and any(best.values[k.name] for k in knobs)  # K and V stream at the banks' NoC limit
    off = dataclasses.replace(best, values={**best.values, **{k.name: 0 for k in knobs}})
    concrete = compilation.lowering.stages["concrete"]
    for ranked, spread in ((best, True), (off, False)):
        program = build_program(concrete, ranked, compilation.lowering.arch)
        nocs = {i.noc for g in program.groups for role in (g.reader, g.writer) for i in P.walk(role)
                if isinstance(i, P.DramRead)}
        assert (1 in nocs) == spread  # every load's NoC is 0 (`read_noc`); the spread share goes on NoC 1


@pytest.mark.parametrize("arch, portable, spreads", [
    ("wormhole_n150", False, True), ("wormhole_n150", True, False), ("ring32", False, False)])
def test_only_two_noc_chips_and_programs_with_a_noc_choice_spread(arch, portable, spreads):
    """TT-Lang's `ttl.copy` moves a whole block on one NoC; a one-NoC chip has nothing to spread over."""
    source = load_kernel_file(EXAMPLES / "matmul.py")
    lowering = loom.lower(source.kernel, source.example_args({"M": 256, "N": 256, "K": 256}, meta=True), arch)
    found = enumerate_candidates(lowering.module, lowering.arch, portable=portable).candidates
    assert found and all(c.spreads == spreads for c in found)


@pytest.mark.parametrize("spans, expected", [
    ([None, None, None], [0, 1, 2]),  # alternate: reader, writer, reader
    ([("tile_n", 0, 1024), ("tile_n", 1024, 3072)], [0, 0]),  # concat's x and y: one of them per block
    ([("tile_n", 0, 1024), ("tile_n", 512, 3072)], [0, 1]),  # both read where they overlap
    ([("tile_n", 0, 1024), ("tile_m", 1024, 3072)], [0, 1]),  # disjoint along different tiles: both may read
    ([None, ("tile_n", 0, 64), ("tile_n", 64, 128), ("tile_n", 128, 192)], [0, 1, 1, 1]),
])
def test_loads_that_never_both_read_in_a_block_take_one_engine(spans, expected):
    assert engine_positions(spans) == expected


def test_concat_reads_both_inputs_on_the_reader_and_matches_torch():
    """Each output block of concat reads x or y, never both (`engine_positions`): the reader issues both, the
    writer stores; with y on the writer, the cores whose blocks come from y read and write on one engine."""
    source = load_kernel_file(EXAMPLES / "concat.py")
    shape = {"M": 128, "N1": 128, "N2": 256}
    args = source.example_args(shape)
    compilation = compile_kernel(source.kernel, args, "wormhole_n150", shape=shape)
    outcome = run(compilation, args, reference=source.reference, functional=True)
    assert outcome.check.ok, outcome.check
    issued = {(i.tensor, role) for g in outcome.program.groups for role in ("reader", "writer")
              for i in P.walk(getattr(g, role)) if isinstance(i, P.DramRead)}
    assert issued == {("x", "reader"), ("y", "reader")}
