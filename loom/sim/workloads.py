"""Hand-written per-core programs for calibration and tests (workloads, not compiler output).

- Data-movement microbenchmarks mirroring tt-metal's `tests/tt_metal/tt_metal/data_movement`
  directed-ideal tests (published in `ideal_performance.md`): each returns a `Microbench`, the
  program plus the bytes its rate is measured over; the rate is bytes / kernel cycles.
- `softmax_program`: a row softmax exercising reductions, broadcasts and SFPU ops.
- The 2-D multicast GEMM lives in `gemm_workload.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from loom.arch import Arch
from loom.arch.routes import routes
from loom.backend.program import (
    CB,
    Affine,
    Barrier,
    Binary,
    Buffer,
    CbPop,
    CbPush,
    CbReserve,
    CbWait,
    CoreGroup,
    DramRead,
    DramWrite,
    Instr,
    Loop,
    Multicast,
    Program,
    Reduce,
    Ref,
    RemoteRead,
    Semaphore,
    SemInc,
    SemWait,
    Tensor,
    Unary,
    Write,
    core_range,
    cx,
)

DTYPE = "bfloat16"


@dataclass(frozen=True)
class Microbench:
    """A microbenchmark program and the bytes its per-core rate counts."""

    name: str
    program: Program
    nbytes: float


def _all_cores(arch: Arch) -> tuple[tuple[int, ...], ...]:
    dims = arch.grid.dims
    return core_range(tuple(0 for _ in dims), tuple(d - 1 for d in dims))


def _nearest_core(arch: Arch, pos: list[int]) -> tuple[int, ...]:
    """The worker core whose router is closest to router coordinate `pos` (a DRAM endpoint), the
    first such in grid order."""
    at = routes(arch).at
    return min(_all_cores(arch), key=lambda core: sum(abs(a - p) for a, p in zip(at(core), pos)))


def _neighbour(arch: Arch, core: tuple[int, ...]) -> tuple[int, ...]:
    """The next core along x (NoC 0 direction)."""
    return ((core[0] + 1) % arch.grid.dims[0], *core[1:])


def _group(cores: tuple, cbs: tuple, **roles: tuple) -> CoreGroup:
    return CoreGroup(cores=cores, cbs=cbs, semaphores=(Semaphore("ready"),), **roles)


def _rest(arch: Arch, busy: set[tuple[int, ...]], cbs: tuple) -> list[CoreGroup]:
    idle = tuple(c for c in _all_cores(arch) if c not in busy)
    return [_group(idle, cbs)] if idle else []


def dram_read(arch: Arch, bank: int = 0, tiles: int = 2048, block: int = 16) -> Microbench:
    """One core (next to `bank`) reads `tiles` tiles that all live in `bank`, `block` per command
    batch, with a barrier at the end (TT's DRAM directed ideal: one core, one channel)."""
    banks = arch.dram.banks
    core = _nearest_core(arch, arch.dram.bank_positions[bank])
    rows = tiles // block * block
    t = Tensor("src", (rows * 32, banks * 32), DTYPE)
    cb = (CB("buf", DTYPE, block, 1, 2),)
    i = Affine.var("i")
    read = DramRead("src", (i * block, bank), "buf", block, 1)
    body: tuple[Instr, ...] = (Loop("i", rows // block, (read,)), Barrier())
    g = _group((core,), cb, reader=body)
    prog = Program(arch.name, (t,), (g, *_rest(arch, {core}, cb)), "dram_read")
    return Microbench("DRAM read", prog, rows * arch.dtypes.tile_bytes[DTYPE])


def dram_write(arch: Arch, bank: int = 0, tiles: int = 2048, block: int = 16) -> Microbench:
    """One core (next to `bank`) writes `tiles` tiles that all land in `bank`."""
    banks = arch.dram.banks
    core = _nearest_core(arch, arch.dram.bank_positions[bank])
    rows = tiles // block * block
    t = Tensor("dst", (rows * 32, banks * 32), DTYPE, "output")
    cb = (CB("buf", DTYPE, block, 1, 2),)
    i = Affine.var("i")
    write = DramWrite("dst", (i * block, bank), "buf", block, 1)
    body: tuple[Instr, ...] = (CbReserve("buf"), CbPush("buf"), Loop("i", rows // block, (write,)), Barrier(),
                               CbPop("buf"))
    g = _group((core,), cb, writer=body)
    prog = Program(arch.name, (t,), (g, *_rest(arch, {core}, cb)), "dram_write")
    return Microbench("DRAM write", prog, rows * arch.dtypes.tile_bytes[DTYPE])


def core_to_core(arch: Arch, repeats: int = 64, tiles: int = 16) -> Microbench:
    """One core writes `tiles`-tile blocks into its neighbour's L1, `repeats` times (1 -> 1)."""
    src = tuple(0 for _ in arch.grid.dims)
    dst = _neighbour(arch, src)
    cb = (CB("buf", DTYPE, tiles, 1, 2),)
    body = (Loop("i", repeats, (Write(dst, "buf", tiles),)), Barrier())
    g = _group((src,), cb, writer=body)
    prog = Program(arch.name, (), (g, *_rest(arch, {src}, cb)), "core_to_core")
    return Microbench("1 -> 1 write", prog, repeats * tiles * arch.dtypes.tile_bytes[DTYPE])


def core_from_core(arch: Arch, repeats: int = 64, tiles: int = 16) -> Microbench:
    """One core reads `tiles`-tile blocks from its neighbour's L1, `repeats` times (1 <- 1)."""
    dst = tuple(0 for _ in arch.grid.dims)
    src = _neighbour(arch, dst)
    cb = (CB("buf", DTYPE, tiles, 1, 2),)
    reader = (SemWait("ready", 1), Loop("i", repeats, (RemoteRead(src, "buf", "buf", tiles),)), Barrier())
    provider = (CbReserve("buf"), CbPush("buf"), SemInc("ready", 1, core=dst))
    groups = (_group((dst,), cb, reader=reader), _group((src,), cb, writer=provider))
    prog = Program(arch.name, (), (*groups, *_rest(arch, {src, dst}, cb)), "core_from_core")
    return Microbench("1 <- 1 read", prog, repeats * tiles * arch.dtypes.tile_bytes[DTYPE])


def one_to_all_unicast(arch: Arch, repeats: int = 4, tiles: int = 16) -> Microbench:
    """One core writes a block to every core of the grid, one unicast each, `repeats` rounds."""
    src = tuple(0 for _ in arch.grid.dims)
    cb = (CB("buf", DTYPE, tiles, 1, 2),)
    x, y = Affine.var("x"), Affine.var("y")
    dims = arch.grid.dims
    if len(dims) == 1:
        inner: Instr = Loop("x", dims[0], (Write((x,), "buf", tiles),))
    else:
        inner = Loop("y", dims[1], (Loop("x", dims[0], (Write((x, y), "buf", tiles),)),))
    body = (Loop("r", repeats, (inner,)), Barrier())
    g = _group((src,), cb, writer=body)
    n = repeats * len(_all_cores(arch)) * tiles * arch.dtypes.tile_bytes[DTYPE]
    prog = Program(arch.name, (), (g, *_rest(arch, {src}, cb)), "one_to_all")
    return Microbench("1 -> all unicast", prog, n)


def one_to_all_multicast(arch: Arch, linked: bool, repeats: int = 64, tiles: int = 16) -> Microbench:
    """One core multicasts a block to the whole grid, `repeats` times; the rate counts bytes sent."""
    src = tuple(0 for _ in arch.grid.dims)
    cb = (CB("buf", DTYPE, tiles, 1, 2),)
    hi = tuple(d - 1 for d in arch.grid.dims)
    body = (Loop("i", repeats, (Multicast(src, hi, "buf", tiles, linked=linked),)), Barrier())
    g = _group((src,), cb, writer=body)
    name = "1 -> all multicast" + (" linked" if linked else "")
    prog = Program(arch.name, (), (g, *_rest(arch, {src}, cb)), name.replace(" ", "_"))
    return Microbench(name, prog, repeats * tiles * arch.dtypes.tile_bytes[DTYPE])


def all_to_one(arch: Arch, repeats: int = 4, tiles: int = 16) -> Microbench:
    """Every other core writes `repeats` blocks into one core's L1; the rate counts bytes received."""
    dst = tuple(0 for _ in arch.grid.dims)
    cb = (CB("buf", DTYPE, tiles, 1, 2),)
    senders = tuple(c for c in _all_cores(arch) if c != dst)
    body = (Loop("i", repeats, (Write(dst, "buf", tiles),)), Barrier())
    groups = (_group(senders, cb, writer=body), _group((dst,), cb))
    n = repeats * len(senders) * tiles * arch.dtypes.tile_bytes[DTYPE]
    return Microbench("all -> 1", Program(arch.name, (), groups, "all_to_one"), n)


def microbenchmarks(arch: Arch) -> dict[str, Microbench]:
    """The eight primitives of tt-metal's ideal_performance.md, keyed like published_points.yaml."""
    return {"dram_read": dram_read(arch), "dram_write": dram_write(arch),
            "core_to_core_write": core_to_core(arch), "core_to_core_read": core_from_core(arch),
            "one_to_all_unicast": one_to_all_unicast(arch),
            "one_to_all_multicast": one_to_all_multicast(arch, linked=False),
            "one_to_all_multicast_linked": one_to_all_multicast(arch, linked=True),
            "all_to_one": all_to_one(arch)}


def softmax_program(arch: Arch, rows: int, cols: int, cores: int = 4, dtype: str = DTYPE) -> Program:
    """Row softmax of X[rows, cols] -> Y: each core takes tile rows `cx, cx + cores, …`; per tile row
    the reader loads the whole row block, compute does max, subtract (column broadcast), exp, sum,
    reciprocal and multiply (column broadcast), the writer stores it. 1-D core indexing on any grid."""
    tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
    rt, ct = rows // tr, cols // tc
    if rt % cores:
        raise ValueError(f"expected tile rows ({rt}) divisible by cores ({cores})")
    per = rt // cores
    dims = arch.grid.dims
    coords = [((i % dims[0],) if len(dims) == 1 else (i % dims[0], i // dims[0])) for i in range(cores)]
    if len(dims) == 2 and cores > dims[0]:
        raise ValueError(f"expected at most {dims[0]} cores (one grid row), found {cores}")
    i = Affine.var("i")
    row = cx + i * cores
    cbs = (CB("x", dtype, 1, ct, 2), CB("y", dtype, 1, ct, 2))
    bufs = (Buffer("t", "float32", 1, ct), Buffer("m", "float32", 1, 1), Buffer("s", "float32", 1, 1))
    reader = (Loop("i", per, (CbReserve("x"), DramRead("X", (row, 0), "x", 1, ct), Barrier(), CbPush("x"))),)
    compute = (Loop("i", per, (
        CbWait("x"), Reduce("max", Ref("x"), Ref("m")), Binary("sub", Ref("x"), Ref("m"), Ref("t"), "col"),
        CbPop("x"), Unary("exp", Ref("t"), Ref("t")), Reduce("sum", Ref("t"), Ref("s")),
        Unary("recip", Ref("s"), Ref("s")), CbReserve("y"),
        Binary("mul", Ref("t"), Ref("s"), Ref("y"), "col"),
        CbPush("y"))),)
    writer = (Loop("i", per, (CbWait("y"), DramWrite("Y", (row, 0), "y", 1, ct), Barrier(), CbPop("y"))),)
    group = CoreGroup(cores=tuple(coords), cbs=cbs, buffers=bufs, reader=reader, compute=compute,
                      writer=writer)
    tensors = (Tensor("X", (rows, cols), dtype), Tensor("Y", (rows, cols), dtype, "output"))
    return Program(arch.name, tensors, (group,), "softmax")
