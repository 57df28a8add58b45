"""Data-movement points as microbenchmark programs on loom.sim.

- tt-metal's directed ideal tests (`ideal_directed_test_bw`, bytes/cycle per core): the eight
  primitives of `loom.sim.workloads.microbenchmarks`; rate = bytes / program cycles (the kernel time
  without each core's setup: the tests time their transfers from inside the kernel). These rates
  are also the simulator's stream ceilings (the architecture YAML `rates`), so the comparison is
  a consistency check of what the simulator adds on top (latency, issue cost, routing).
- tt-metal's "DRAM Interleaved Packet Sizes" sweeps (`latency` in cycles of one core moving
  `num_transactions` transactions of `transaction_size_B` between its L1 and DRAM; Receiver =
  the reader kernel's reads, Sender = the writer kernel's writes, each timed on its own from the
  first issue to its barrier). Despite the name, the test's DRAM buffer is one page as large as
  the whole buffer (tt-metal tests/tt_metal/tt_metal/data_movement/dram_unary/test_unary_dram.cpp,
  `InterleavedBufferConfig{.size = total, .page_size = total}`; later versions name the channel,
  `get_noc_addr_from_bank_id(dram_channel = 0, ...)`), so every transaction hits one DRAM bank at
  consecutive addresses. The same on loom.sim: one core (0, 0), transaction i a block of whole
  tiles read from (written to) bank 0, one barrier at the end. Transactions smaller than a tile,
  or not a whole number of tiles, are skipped: loom.sim moves whole tiles.
Blackhole points of these tests ran on a 110-core part ("All" = 110 Tensix) and use the 11x10
description; Wormhole points the n150.
"""

from __future__ import annotations

from loom.arch import load_arch
from loom.calibrate.common import BUILDERS, Plan, Row, SimSpec, Skip, arch_for, number
from loom.calibrate.points import Point, unknown_fields

KNOWN_FIELDS: dict[str, set[str] | None] = {
    "id": None, "chip": None, "kernel": None, "caveat": None, "measured": None, "measurement_method": None,
    "source": None,
    "shape": {"primitive", "test", "kernel", "num_transactions", "transaction_size_B", "run_host_id", "op",
              "outstanding_reads", "page", "stage"},
}

PRIMITIVES = {"DRAM Read": "dram_read", "DRAM Write": "dram_write", "One To One": "core_to_core_write",
              "One From One": "core_to_core_read", "One To All (Unicast)": "one_to_all_unicast",
              "One To All (Multicast)": "one_to_all_multicast",
              "One To All (Multicast + Linked)": "one_to_all_multicast_linked", "One From All": "all_to_one"}
"""tt-metal ideal_performance.md primitive -> `loom.sim.workloads.microbenchmarks` key."""

ARCH_OF_CHIP = {"wormhole_b0": ("wormhole_n150", None), "blackhole": ("blackhole_p150", (11, 10)),
                "blackhole_p150": ("blackhole_p150", (13, 10))}
"""Chip names of the data-movement tests -> (chip family, grid) (tt-metal's test boards)."""

PACKET_TEST = "DRAM Interleaved Packet Sizes"
DTYPE = "bfloat16"


def plan_data_movement(point: Point) -> Plan:
    raw = point.raw
    extra = unknown_fields(raw, KNOWN_FIELDS)
    if extra:
        raise Skip(f"unknown field {extra[0]}")
    if point.chip not in ARCH_OF_CHIP:
        raise Skip(f"unknown chip '{point.chip}'")
    family, grid = ARCH_OF_CHIP[point.chip]
    arch = arch_for(family, grid)
    shape = raw.get("shape") or {}
    primitive, test = shape.get("primitive"), shape.get("test")
    if primitive is not None:
        key = PRIMITIVES.get(str(primitive))
        if key is None:
            raise Skip(f"data-movement primitive '{primitive}' has no loom.sim microbenchmark")
        m = point.metric("ideal_directed_test_bw")
        value = number(m.value) if m else None
        if value is None or m.unit != "bytes/cycle":
            raise Skip("no ideal_directed_test_bw in bytes/cycle")
        spec = SimSpec("microbench", arch.name, (key,))

        def finish(results: list) -> Row:
            r = results[0]
            return Row(point.id, point.chip, point.kernel, "bytes_per_cycle", value, r["rate"], None, arch.name,
                       f"ideal:{primitive}", DTYPE, None, f"{key} microbenchmark, bytes / program cycles")

        return Plan(point, [spec], finish)
    if test == PACKET_TEST:
        side = str(shape.get("kernel"))
        if side not in ("Receiver", "Sender"):
            raise Skip(f"unknown {PACKET_TEST} kernel '{side}'")
        size, count = shape.get("transaction_size_B"), shape.get("num_transactions")
        if not isinstance(size, int) or not isinstance(count, int) or size <= 0 or count <= 0:
            raise Skip("transaction size or count not a positive integer")
        tile = arch.dtypes.tile_bytes[DTYPE]
        if size % tile:
            raise Skip("transaction not a whole number of tiles (loom.sim moves whole tiles)")
        m = point.metric("latency")
        value = number(m.value) if m else None
        if value is None or m.unit != "cycles":
            raise Skip("no latency in cycles")
        spec = SimSpec("dram_packets", arch.name, (side == "Receiver", size // tile, count))

        def finish_packets(results: list) -> Row:
            r = results[0]
            return Row(point.id, point.chip, point.kernel, "latency_cycles", value, r["program_cycles"], None,
                       arch.name, f"dram_packets:{side}", DTYPE, None,
                       f"{count} x {size} B {'reads' if side == 'Receiver' else 'writes'}, one DRAM bank")

        return Plan(point, [spec], finish_packets)
    what = test or shape.get("op") or "unnamed"
    raise Skip(f"data-movement test not expressed as a loom.sim microbenchmark: '{what}'")


def microbench_figures(arch_name: str, key: str) -> dict[str, float]:
    from loom.sim import simulate
    from loom.sim.workloads import microbenchmarks

    arch = load_arch(arch_name)
    bench = microbenchmarks(arch)[key]
    r = simulate(bench.program, arch)
    return {"program_cycles": float(r.program_cycles), "rate": bench.nbytes / r.program_cycles}


def packets_program(arch, read: bool, tiles: int, count: int):
    """One core (0, 0) moving `count` transactions of `tiles` tiles each between its L1 and DRAM
    bank 0, at consecutive addresses, one barrier at the end. The tensor is `count * tiles` tile
    rows of `banks` tile columns; its column 0 holds tile ids that are multiples of `banks`, all
    in bank 0 under page interleaving, and transaction i is rows `i * tiles` to `(i + 1) * tiles`
    of that column."""
    from loom.backend.program import (
        CB,
        Barrier,
        CbPop,
        CbPush,
        CbReserve,
        CoreGroup,
        DramRead,
        DramWrite,
        Program,
        Semaphore,
        Tensor,
    )

    banks = arch.dram.banks
    name = "src" if read else "dst"
    tensor = Tensor(name, (count * tiles * 32, banks * 32), DTYPE, "input" if read else "output")
    cb = (CB("buf", DTYPE, tiles, 1, 2),)
    op = DramRead if read else DramWrite
    moves = tuple(op(name, (i * tiles, 0), "buf", tiles, 1) for i in range(count))
    core = tuple(0 for _ in arch.grid.dims)
    if read:
        group = CoreGroup(cores=(core,), cbs=cb, semaphores=(Semaphore("ready"),), reader=(*moves, Barrier()))
    else:
        group = CoreGroup(cores=(core,), cbs=cb, semaphores=(Semaphore("ready"),),
                          writer=(CbReserve("buf"), CbPush("buf"), *moves, Barrier(), CbPop("buf")))
    return Program(arch.name, (tensor,), (group,), f"dram_packets_{'read' if read else 'write'}")


def packets_figures(arch_name: str, read: bool, tiles: int, count: int) -> dict[str, float]:
    from loom.sim import simulate

    arch = load_arch(arch_name)
    r = simulate(packets_program(arch, read, tiles, count), arch)
    return {"program_cycles": float(r.program_cycles)}


BUILDERS["microbench"] = microbench_figures
BUILDERS["dram_packets"] = packets_figures
