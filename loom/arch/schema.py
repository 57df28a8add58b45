"""Typed schema of an architecture description (one YAML file per target in `loom/archs/`).

This module declares fields, units and the consistency rules between fields. It holds no
hardware number: every number lives in a YAML file, next to a comment naming its source.
A consistency rule that fails names the offending field through `inconsistent`, so that
`loom.arch.load` can report it as a dotted path (`noc.multicast`, `l1.usable_bytes`).
"""

from __future__ import annotations

import math
from typing import Annotated, Literal, NoReturn

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

Topology = Literal["torus_2d", "mesh_2d", "ring_1d"]
Fidelity = Literal["LoFi", "HiFi2", "HiFi3", "HiFi4"]
MulticastShape = Literal["row", "column", "rect"]
PosInt = Annotated[int, Field(gt=0)]
NonNegInt = Annotated[int, Field(ge=0)]
PosFloat = Annotated[float, Field(gt=0)]

VECTOR_OPS = ("add", "sub", "mul", "max", "exp", "recip", "reduce_row")
"""Vector-unit operations every architecture must price (operation names, not numbers)."""

_DIMS_OF_TOPOLOGY = {"torus_2d": 2, "mesh_2d": 2, "ring_1d": 1}
INCONSISTENT = "arch_inconsistent"
"""Pydantic error type raised by `inconsistent`; its context carries the field path."""


def inconsistent(field: str, message: str) -> NoReturn:
    """Reject a validated model; `field` is the dotted path relative to the model checked."""
    raise PydanticCustomError(INCONSISTENT, "{message}", {"field": field, "message": message})


class _Frozen(BaseModel):
    """Base of every schema model: immutable, strict types, unknown fields rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    def __hash__(self) -> int:  # list and dict fields are unhashable; hash the content instead
        return hash(self.model_dump_json())


class Grid(_Frozen):
    """The logical worker grid that kernels are mapped onto."""

    dims: list[PosInt] = Field(
        min_length=1, max_length=2,
        description="Worker-grid extent per dimension, x first: [x, y] for a 2-D array, [n] for a ring.")
    topology: Topology = Field(description="How the grid's edges connect; must match the number of dims.")

    @model_validator(mode="after")
    def _topology_matches_dims(self) -> Grid:
        want = _DIMS_OF_TOPOLOGY[self.topology]
        if len(self.dims) != want:
            inconsistent("topology", f"expected {want} grid dimension(s) for topology '{self.topology}', "
                                     f"found grid.dims = {self.dims}")
        return self

    @property
    def num_cores(self) -> int:
        """Number of worker cores (the product of `dims`)."""
        return math.prod(self.dims)


class L1(_Frozen):
    """Per-core scratchpad (L1) SRAM."""

    size_bytes: PosInt = Field(description="Physical L1 size per core, in bytes.")
    usable_bytes: PosInt = Field(
        description="L1 bytes per core that kernels can allocate (physical size minus firmware reservation).")
    alignment_bytes: PosInt = Field(description="Required alignment of L1 buffers and NoC transfers (bytes).")

    @model_validator(mode="after")
    def _usable_fits(self) -> L1:
        if self.usable_bytes > self.size_bytes:
            inconsistent("usable_bytes", f"expected at most l1.size_bytes = {self.size_bytes}, "
                                         f"found {self.usable_bytes}")
        return self


class Dram(_Frozen):
    """Off-chip DRAM as the NoC sees it: banks with fixed endpoints."""

    size_bytes: PosInt = Field(description="Total DRAM capacity, in bytes.")
    banks: PosInt = Field(description="Number of DRAM banks that interleaved buffers are spread over.")
    bandwidth_bytes_per_cycle: PosFloat = Field(
        description="Whole-chip peak DRAM bandwidth in bytes per core-clock cycle (GB/s divided by GHz).")
    bank_positions: list[list[int]] = Field(
        description="Each bank's NoC endpoint, one per bank: router coordinates where `noc.routers` places the "
                    "workers on the chip's routers, else worker-grid coordinates that may lie one step outside "
                    "the worker grid (-1 or dims[d]).")
    noc1_bank_positions: list[list[int]] | None = Field(
        default=None, description="Where NoC 1 reaches each bank, where that differs from `bank_positions` (a "
                                  "DRAM channel has several NoC endpoints; Blackhole's banks take NoC 0 and NoC 1 "
                                  "at different ones); absent, both NoCs use `bank_positions`.")
    efficiency: float = Field(
        gt=0, le=1,
        description="Fraction of the peak bandwidth that sustained streaming reaches (measured saturation / "
                    "spec peak); the simulator serves each bank at bandwidth / banks x efficiency.")
    read_latency_cycles: NonNegInt = Field(description="Fixed round-trip latency of a DRAM read (cycles).")
    write_latency_cycles: NonNegInt = Field(description="Fixed latency of a DRAM write until acked (cycles).")

    @model_validator(mode="after")
    def _one_position_per_bank(self) -> Dram:
        for name in ("bank_positions", "noc1_bank_positions"):
            positions = getattr(self, name)
            if positions is not None and len(positions) != self.banks:
                inconsistent(name, f"expected one position per bank (dram.banks = {self.banks}), "
                                   f"found {len(positions)} positions")
        return self


class Noc(_Frozen):
    """The network-on-chip that moves data between cores and DRAM."""

    count: int = Field(ge=1, le=2, description="Number of independent NoCs (1 or 2).")
    topology: Topology = Field(description="Topology of each NoC; must match the grid's dimensionality.")
    link_bytes_per_cycle: PosInt = Field(description="Flit width: bytes a link moves per cycle.")
    hop_latency_cycles: PosInt = Field(description="Latency of one router hop, in cycles.")
    niu_latency_cycles: NonNegInt = Field(description="Latency between a core's NoC interface and router.")
    max_packet_bytes: PosInt = Field(description="Largest payload of one NoC packet, in bytes.")
    transfer_issue_cycles: NonNegInt = Field(
        description="Software cycles to issue one transfer (address computation, command registers).")
    multicast: list[MulticastShape] = Field(
        description="Multicast destination shapes the NoC supports: a grid row, a grid column, a rectangle.")
    gather: bool = Field(description="Whether core-to-core (L1 to L1) forwarding and gathering is supported.")
    routers: list[PosInt] | None = Field(
        default=None, description="Extent of the torus of NoC routers per dimension, x first: every core with a "
                                  "router (workers, DRAM, Ethernet, PCIe, ARC). With `worker_routers`; absent, the "
                                  "torus is the worker grid extended by the DRAM endpoints.")
    worker_routers: list[list[NonNegInt]] | None = Field(
        default=None, description="Per grid dimension, the router coordinate of each worker column (x) or row "
                                  "(y), in order (the worker grid is a subset of the routers, with DRAM and other "
                                  "cores between); with `routers`. Absent, worker i sits at router i.")


class Rates(_Frozen):
    """Measured sustained data-movement rates of one core, in bytes per cycle."""

    dram_read: PosFloat = Field(description="One core reading from DRAM.")
    dram_write: PosFloat = Field(description="One core writing to DRAM.")
    core_to_core: PosFloat = Field(description="One core writing into another core's L1 (1 -> 1).")
    core_from_core: PosFloat = Field(description="One core reading from another core's L1 (1 <- 1).")
    multicast: PosFloat = Field(description="One core multicasting to all cores (1 -> all).")
    multicast_linked: PosFloat = Field(description="One core multicasting to all, linked transactions.")
    gather_all: PosFloat = Field(description="One core receiving from all cores (1 <- all).")
    scatter_all: PosFloat = Field(description="One core writing to all cores by unicast (1 -> all unicast).")


class MatrixEngine(_Frozen):
    """The per-core matrix unit (Tensix FPU) running tile matmuls."""

    tile: list[PosInt] = Field(min_length=3, max_length=3, description="Matmul tile shape [M, N, K].")
    cycles_per_tile: dict[Fidelity, PosInt] = Field(
        description="Cycles for one tile matmul at each math fidelity; LoFi is required.")
    min_rows_full_rate: PosInt = Field(description="Rows of M below which the engine wastes throughput.")
    fixed_latency_cycles: NonNegInt = Field(description="Fixed setup latency of one matmul call, in cycles.")
    default_fidelity: dict[str, Fidelity] = Field(
        description="Default math fidelity per input dtype (keys must be dtypes in dtypes.tile_bytes).")

    @model_validator(mode="after")
    def _fidelities_priced(self) -> MatrixEngine:
        if "LoFi" not in self.cycles_per_tile:
            found = sorted(self.cycles_per_tile)
            inconsistent("cycles_per_tile", f"expected a 'LoFi' entry, found only {found}")
        for dtype, fidelity in self.default_fidelity.items():
            if fidelity not in self.cycles_per_tile:
                inconsistent(f"default_fidelity.{dtype}",
                             f"expected a fidelity priced in matrix_engine.cycles_per_tile "
                             f"({', '.join(self.cycles_per_tile)}), found '{fidelity}'")
        return self


class VectorUnit(_Frozen):
    """The per-core SIMD vector unit (SFPU) together with FPU element-wise ops, priced per tile."""

    lanes: PosInt = Field(description="SIMD lanes of the vector unit.")
    cycles_per_tile: dict[str, PosInt] = Field(
        description=f"Cycles to apply an operation to one tile; must price {', '.join(VECTOR_OPS)}.")

    @model_validator(mode="after")
    def _ops_priced(self) -> VectorUnit:
        missing = [op for op in VECTOR_OPS if op not in self.cycles_per_tile]
        if missing:
            inconsistent("cycles_per_tile", f"expected entries for {', '.join(VECTOR_OPS)}, "
                                            f"found no entry for {', '.join(missing)}")
        return self


class DataMover(_Frozen):
    """The unpacker (L1 -> the matrix unit's source registers) or the packer (destination register
    -> L1) of a core, priced per tile by storage format (`loom.cost`)."""

    cycles_per_tile: dict[str, PosInt] = Field(
        min_length=1, description="Cycles to move one tile of each dtype (keys must be dtypes in dtypes.tile_bytes).")


class Dtypes(_Frozen):
    """Storage formats of tiles."""

    tile_bytes: dict[str, PosInt] = Field(
        min_length=1, description="Bytes of one tile of each dtype, including shared exponents.")
    dram_alignment_bytes: PosInt = Field(description="Alignment DRAM reads and DRAM-resident tiles need.")


class Tiling(_Frozen):
    """Tile and block-size rules that kernels must follow."""

    tile_rows: PosInt = Field(description="Rows of a tile.")
    tile_cols: PosInt = Field(description="Columns of a tile.")
    block_alignment: PosInt = Field(
        description="Block sizes of the two innermost dims of every L1 buffer must be multiples of this.")


class Arch(_Frozen):
    """A complete architecture description: structure, memories, NoC and primitive costs."""

    name: str = Field(min_length=1, description="Short name, equal to the YAML file's stem.")
    description: str = Field(description="One line saying what this target is.")
    clock_ghz: PosFloat = Field(description="Core clock in GHz; every cycle count refers to this clock.")
    grid: Grid = Field(description="The worker grid.")
    l1: L1 = Field(description="Per-core L1 SRAM.")
    dram: Dram = Field(description="Off-chip DRAM.")
    noc: Noc = Field(description="Network-on-chip.")
    rates: Rates = Field(description="Measured per-core data-movement rates.")
    matrix_engine: MatrixEngine = Field(description="Matrix unit.")
    vector_unit: VectorUnit = Field(description="Vector unit (and the FPU's element-wise ops), math cycles per tile.")
    unpack: DataMover = Field(description="Unpacker: L1 tiles into the matrix unit's source registers.")
    pack: DataMover = Field(description="Packer: the destination register's tiles into L1.")
    dtypes: Dtypes = Field(description="Tile storage formats.")
    tiling: Tiling = Field(description="Tile and block-size rules.")
    launch_overhead_cycles: NonNegInt = Field(description="Overhead of launching one program on the device.")
    kernel_setup_cycles: NonNegInt = Field(description=(
        "Each core's fixed start-up inside the kernel time, before its first transfer or tile: firmware start, "
        "circular buffers, the engines' configuration (a device profiler's kernel time includes it)."))

    @model_validator(mode="after")
    def _consistent(self) -> Arch:
        ndims = len(self.grid.dims)
        if _DIMS_OF_TOPOLOGY[self.noc.topology] != ndims:
            inconsistent("noc.topology", f"expected a topology with {ndims} dimension(s) like grid.topology "
                                         f"'{self.grid.topology}', found '{self.noc.topology}'")
        if ndims == 1:
            illegal = [shape for shape in self.noc.multicast if shape != "row"]
            if illegal:
                inconsistent("noc.multicast", f"expected only 'row' multicast on a 1-D grid, "
                                              f"found {', '.join(repr(s) for s in illegal)}")
        self._check_routers(ndims)
        positions = [(f"bank_positions.{i}", pos) for i, pos in enumerate(self.dram.bank_positions)]
        positions += [(f"noc1_bank_positions.{i}", pos) for i, pos in enumerate(self.dram.noc1_bank_positions or [])]
        for field, pos in positions:
            if self.noc.routers is None:
                inside = len(pos) == ndims and all(-1 <= c <= d for c, d in zip(pos, self.grid.dims))
                bounds = " x ".join(f"[-1, {d}]" for d in self.grid.dims)
            else:  # router coordinates, off the workers' routers
                inside = len(pos) == ndims and all(0 <= c < n for c, n in zip(pos, self.noc.routers)) and not all(
                    c in lines for c, lines in zip(pos, self.noc.worker_routers))
                bounds = " x ".join(f"[0, {n - 1}]" for n in self.noc.routers) + ", not a worker's router"
            if not inside:
                inconsistent(f"dram.{field}", f"expected {ndims} coordinate(s) within {bounds}, found {pos}")
        for section in ("unpack", "pack"):
            for dtype in getattr(self, section).cycles_per_tile:
                if dtype not in self.dtypes.tile_bytes:
                    inconsistent(f"{section}.cycles_per_tile.{dtype}",
                                 f"expected a dtype listed in dtypes.tile_bytes "
                                 f"({', '.join(self.dtypes.tile_bytes)}), found '{dtype}'")
        for dtype in self.matrix_engine.default_fidelity:
            if dtype not in self.dtypes.tile_bytes:
                inconsistent(f"matrix_engine.default_fidelity.{dtype}",
                             f"expected a dtype listed in dtypes.tile_bytes "
                             f"({', '.join(self.dtypes.tile_bytes)}), found '{dtype}'")
        return self

    def _check_routers(self, ndims: int) -> None:
        """`noc.routers` and `noc.worker_routers` come together; each worker line on a router of the torus."""
        routers, lines = self.noc.routers, self.noc.worker_routers
        if (routers is None) != (lines is None):
            given, missing = ("routers", "worker_routers") if lines is None else ("worker_routers", "routers")
            inconsistent(f"noc.{missing}", f"expected noc.{missing} with noc.{given}, found none")
        if routers is None:
            return
        if len(routers) != ndims or len(lines) != ndims:
            inconsistent("noc.routers", f"expected {ndims} extent(s) and {ndims} list(s) of worker routers "
                                        f"(grid.dims = {self.grid.dims}), found {routers} and {len(lines)} list(s)")
        for d, (extent, line) in enumerate(zip(routers, lines)):
            if len(line) != self.grid.dims[d] or sorted(set(line)) != line or line[-1] >= extent:
                inconsistent(f"noc.worker_routers.{d}",
                             f"expected {self.grid.dims[d]} increasing router coordinates below {extent} "
                             f"(grid.dims[{d}] = {self.grid.dims[d]}, noc.routers[{d}] = {extent}), found {line}")

    @property
    def num_cores(self) -> int:
        """Number of worker cores."""
        return self.grid.num_cores

    def peak_tflops(self, fidelity: Fidelity = "LoFi") -> float:
        """Chip peak matmul TFLOPS at `fidelity`: every core running tile matmuls back to back."""
        flops_per_tile = 2 * math.prod(self.matrix_engine.tile)
        per_core_per_cycle = flops_per_tile / self.matrix_engine.cycles_per_tile[fidelity]
        return self.num_cores * per_core_per_cycle * self.clock_ghz / 1000

    def headline(self) -> dict[str, str]:
        """Human-readable headline figures, one table row of `loom archs`."""
        dims = self.grid.dims
        cores = f"{'x'.join(map(str, dims))} = {self.num_cores}" if len(dims) > 1 else f"{dims[0]} (ring)"
        dram_gbps = self.dram.bandwidth_bytes_per_cycle * self.clock_ghz
        return {
            "cores": cores,
            "L1 usable": f"{self.l1.usable_bytes / 1024:.0f} KiB",
            "DRAM": f"{dram_gbps:.0f} GB/s, {self.dram.banks} banks",
            "NoCs": f"{self.noc.count} x {self.noc.topology}, {self.noc.link_bytes_per_cycle} B/cycle",
            "peak TFLOPS (bf16 LoFi)": f"{self.peak_tflops('LoFi'):.1f}",
            "clock": f"{self.clock_ghz:g} GHz",
        }
