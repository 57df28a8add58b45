"""Timing of tiny hand-built programs with known answers, every number taken from the YAML."""

from __future__ import annotations

import math

import pytest

from loom.arch.schema import DataMover
from loom.backend import (
    CB,
    Barrier,
    CbPop,
    CbPush,
    CbReserve,
    CbWait,
    CoreGroup,
    DramRead,
    DramWrite,
    Fill,
    Loop,
    Matmul,
    Multicast,
    Program,
    Ref,
    Tensor,
    Write,
    core_range,
)
from loom.backend.program import Buffer, ProgramError
from loom.sim import simulate
from tests.sim.conftest import with_rates

BF16 = "bfloat16"


def _idle(arch, busy: set) -> list[CoreGroup]:
    rest = tuple(c for c in core_range((0, 0), tuple(d - 1 for d in arch.grid.dims)) if c not in busy)
    return [CoreGroup(cores=rest, cbs=(CB("buf", BF16, 64, 1, 1),))]


def test_one_dram_read_is_latency_plus_bytes_over_bandwidth(wh) -> None:
    bank = 3
    core = (0, 4)
    prog = Program(wh.name, (Tensor("A", (32, 32 * wh.dram.banks), BF16),), (
        CoreGroup(cores=(core,), cbs=(CB("buf", BF16),),
                  reader=(DramRead("A", (0, bank), "buf"), Barrier())),))
    r = simulate(prog, wh)
    nbytes = wh.dtypes.tile_bytes[BF16]
    bank_rate = wh.dram.bandwidth_bytes_per_cycle / wh.dram.banks * wh.dram.efficiency
    bottleneck = min(bank_rate, wh.rates.dram_read, wh.rates.gather_all, float(wh.noc.link_bytes_per_cycle))
    expected = wh.launch_overhead_cycles + wh.kernel_setup_cycles \
        + max(nbytes / bottleneck, wh.noc.transfer_issue_cycles) + wh.dram.read_latency_cycles
    assert r.cycles == pytest.approx(expected, rel=1e-9)
    assert r.dram_read_bytes_by_tensor == {"A": nbytes} and r.dram_read_tiles_by_tensor == {"A": 1}


def _writes(arch, pairs: list[tuple[tuple, tuple]], tiles: int = 64) -> Program:
    groups = [CoreGroup(cores=(src,), cbs=(CB("buf", BF16, tiles, 1, 1),),
                        writer=(Write(dst, "buf", tiles), Barrier())) for src, dst in pairs]
    return Program(arch.name, (), (*groups, *_idle(arch, {s for s, _ in pairs})), "writes")


def test_two_transfers_sharing_a_link_take_twice_as_long(wh) -> None:
    fast = with_rates(wh, core_to_core=1e6, gather_all=1e6, scatter_all=1e6)  # links become the bottleneck
    alone = simulate(_writes(fast, [((0, 0), (3, 0))]), fast).program_cycles
    shared = simulate(_writes(fast, [((0, 0), (3, 0)), ((1, 0), (2, 0))]), fast).program_cycles
    apart = simulate(_writes(fast, [((0, 0), (3, 0)), ((0, 1), (3, 1))]), fast).program_cycles
    flits = math.ceil(64 * 2048 / wh.noc.link_bytes_per_cycle)
    assert alone == pytest.approx(flits, rel=0.05)
    assert shared / alone == pytest.approx(2.0, rel=0.05)
    assert apart == pytest.approx(alone, rel=1e-6)  # different rows: no shared link


def _mcast(arch, hi: tuple, repeats: int = 8) -> Program:
    g = CoreGroup(cores=((0, 0),), cbs=(CB("buf", BF16, 64, 1, 1),),
                  writer=(Loop("i", repeats, (Multicast((1, 0), hi, "buf"),)), Barrier()))
    return Program(arch.name, (), (g, *_idle(arch, {(0, 0)})), "mcast")


def test_multicast_to_seven_cores_is_one_injection(wh) -> None:
    to_one = simulate(_mcast(wh, (1, 0)), wh)
    to_seven = simulate(_mcast(wh, (7, 0)), wh)
    assert to_seven.program_cycles == pytest.approx(to_one.program_cycles, rel=0.02)
    sent = 8 * 64 * 2048
    assert to_seven.program_cycles == pytest.approx(sent / wh.rates.multicast_linked, rel=0.02)
    # Seven unicasts of the same data cost seven injections.
    unicasts = CoreGroup(cores=((0, 0),), cbs=(CB("buf", BF16, 64, 1, 1),),
                         writer=(Loop("i", 8, tuple(Write((x, 0), "buf") for x in range(1, 8))), Barrier()))
    seven = simulate(Program(wh.name, (), (unicasts, *_idle(wh, {(0, 0)})), "u"), wh)
    assert seven.program_cycles == pytest.approx(7 * sent / wh.rates.scatter_all, rel=0.05)


def test_back_pressure_paces_the_producer_by_the_consumer(wh) -> None:
    """A 2-slot CB between a fast reader and a slow compute: the run takes the compute's time."""
    n = 16
    cbs = (CB("a", BF16, 1, 1, 2), CB("b", BF16, 1, 1, 2))
    reader = (Loop("i", n, (CbReserve("a"), CbPush("a"))),)
    compute = (Loop("i", n, (CbWait("a"), CbWait("b"),
                             Matmul(Ref("a"), Ref("b"), Ref("acc"), True, "HiFi4"), CbPop("a"), CbPop("b"))),)
    writer = (Loop("i", n, (CbReserve("b"), CbPush("b"))),)
    g = CoreGroup(cores=((0, 0),), cbs=cbs, buffers=(Buffer("acc", "float32", 1, 1),),
                  reader=reader, compute=compute, writer=writer)
    r = simulate(Program(wh.name, (), (g,), "bp"), wh)
    # the math thread paces it: each call's set-up and tile product; the packer drains the last result
    per = wh.matrix_engine.cycles_per_tile["HiFi4"] + wh.matrix_engine.fixed_latency_cycles
    assert r.program_cycles == pytest.approx(n * per + wh.pack.cycles_per_tile["float32"])
    assert r.utilisation["compute"] == pytest.approx(n * per / r.program_cycles)  # busy but for the drain


@pytest.mark.parametrize("fidelity", ["LoFi", "HiFi2", "HiFi4"])
def test_matmul_cycles_follow_fidelity_and_thin_rows(wh, fidelity: str) -> None:
    # a cheap unpacker, so that the matrix unit paces the run (unpack-bound runs: test_tensix_threads.py)
    wh = wh.model_copy(update={"unpack": DataMover(cycles_per_tile={d: 1 for d in wh.unpack.cycles_per_tile})})

    def run(rows_valid: int | None) -> float:
        g = CoreGroup(cores=((0, 0),), buffers=(Buffer("a", BF16, 2, 3), Buffer("b", BF16, 3, 4),
                                                 Buffer("c", "float32", 2, 4)),
                      compute=(Fill(Ref("c")), Matmul(Ref("a"), Ref("b"), Ref("c"), True, fidelity,
                                                      subblock=(2, 2), rows_valid=rows_valid)))
        return simulate(Program(wh.name, (), (g,), "mm"), wh).program_cycles
    me = wh.matrix_engine
    # math runs the fill (8 tiles), then the matmul's set-up per subblock and 3 steps of 2 x 4 tile
    # products (its unpacking hides under the fill); the packer then drains the 8 fp32 output tiles
    fill = 8 * wh.vector_unit.cycles_per_tile["copy"]
    drain = 8 * wh.pack.cycles_per_tile["float32"]
    full = 2 * 4 * 3 * me.cycles_per_tile[fidelity] + 2 * me.fixed_latency_cycles
    assert run(None) == pytest.approx(fill + full + drain)
    thin = 2 * 4 * 3 * me.cycles_per_tile[fidelity] * me.min_rows_full_rate / wh.tiling.tile_rows
    assert run(1) == pytest.approx(fill + thin + 2 * me.fixed_latency_cycles + drain)  # 1 row costs like 8 rows


def test_result_reports_dram_traffic_links_and_l1(wh) -> None:
    from loom.sim.gemm_workload import gemm_grid_config, gemm_program
    cfg = gemm_grid_config(wh, 256, 256, 256, (4, 4), in0_block_w=2)
    r = simulate(gemm_program(wh, cfg), wh)
    tile = wh.dtypes.tile_bytes[BF16]
    # Every A and B tile is read once (senders multicast it); with out blocks of half the per-core
    # block, each sender reads its operand once per output block across the other dimension.
    assert r.dram_read_tiles_by_tensor == {"A": 64, "B": 64, "C": 0}
    half = gemm_grid_config(wh, 256, 256, 256, (4, 4), in0_block_w=2, out_block=(1, 2))
    assert simulate(gemm_program(wh, half), wh).dram_read_tiles_by_tensor == {"A": 64, "B": 128, "C": 0}
    assert r.dram_write_bytes_by_tensor["C"] == 64 * tile
    assert 0 < r.busiest_link_utilisation <= 1 and r.busiest_link.startswith("NoC")
    assert r.l1_bytes_per_core == max(gemm_program(wh, cfg).l1_bytes(wh).values())
    assert r.tflops() == pytest.approx(2 * 256**3 / (r.us * 1e-6) / 1e12)
    assert not r.extrapolated and "engines" in r.summary()


def test_two_dram_readers_sharing_a_link_take_twice_as_long(wh) -> None:
    """Banks 1 and 4 sit on router row 1 at columns 0 and 5; cores (2, 0) and (2, 1) sit on router column 3.
    On NoC 0 (+x, then +y: the reader's) both routes run along row 1 through columns 0 to 3 (bank 4's wraps
    around the torus). With bank, stream and port rates raised, the shared links are the bottleneck."""
    fast = with_rates(wh, dram_read=1e6, gather_all=1e6)
    fast = fast.model_copy(update={"dram": fast.dram.model_copy(update={"bandwidth_bytes_per_cycle": 1e7})})
    banks = fast.dram.banks
    assert [tuple(fast.dram.bank_positions[b]) for b in (1, 4)] == [(0, 1), (5, 1)]
    assert fast.noc.worker_routers[0][2] == 3 and fast.noc.worker_routers[1][:2] == [1, 2]

    def run(readers: list[tuple[tuple[int, int], int]]) -> float:
        groups = [CoreGroup(cores=(core,), cbs=(CB("buf", BF16, 64, 1, 1),),
                            reader=(DramRead("A", (0, bank), "buf", 64, 1), Barrier()))
                  for core, bank in readers]
        prog = Program(fast.name, (Tensor("A", (64 * 32, banks * 32), BF16),),
                       (*groups, *_idle(fast, {c for c, _ in readers})), "readers")
        return simulate(prog, fast).program_cycles - fast.dram.read_latency_cycles

    alone = run([((2, 0), 1)])
    both = run([((2, 0), 1), ((2, 1), 4)])
    assert alone == pytest.approx(math.ceil(64 * 2048 / 32) + 16, rel=0.02)  # flits + one header per tile
    assert both / alone == pytest.approx(2.0, rel=0.05)


def test_l1_overflow_stops_a_simulation(wh) -> None:
    from loom.backend import L1OverflowError
    g = CoreGroup(cores=((0, 0),), cbs=(CB("big", "float32", 20, 20, 1),))
    with pytest.raises(L1OverflowError, match="found 1638400 B"):
        simulate(Program(wh.name, (), (g,), "big"), wh)


def test_a_padded_tensor_moves_only_its_valid_tiles(wh) -> None:
    """A 2x4-tile block over a tensor whose data ends after 1 row and 3 columns of tiles: the
    program reads and writes the whole block, DRAM moves 3 tiles each way, and the time is that
    of the 3-tile transfer."""
    def prog(valid):
        tensors = (Tensor("A", (64, 128), BF16, valid=valid), Tensor("C", (64, 128), BF16, "output", valid=valid))
        return Program(wh.name, tensors, (CoreGroup(cores=((0, 0),), cbs=(CB("buf", BF16, 2, 4),),
                                                    reader=(CbReserve("buf"), DramRead("A", (0, 0), "buf", 2, 4),
                                                            Barrier(), CbPush("buf")),
                                                    writer=(CbWait("buf"), DramWrite("C", (0, 0), "buf", 2, 4),
                                                            Barrier(), CbPop("buf"))),))
    padded, real = simulate(prog((32, 70))), simulate(prog(None))
    assert padded.dram_read_tiles_by_tensor == {"A": 3, "C": 0}
    assert padded.dram_write_tiles_by_tensor == {"A": 0, "C": 3}
    assert real.dram_read_tiles_by_tensor["A"] == 8
    assert padded.cycles < real.cycles


def test_a_valid_extent_must_lie_inside_the_tensor(wh) -> None:
    prog = Program(wh.name, (Tensor("A", (64, 64), BF16, valid=(64, 96)),), _idle(wh, set()))
    with pytest.raises(ProgramError, match=r"valid extent .* within its shape \(64, 64\), found \(64, 96\)"):
        simulate(prog)
