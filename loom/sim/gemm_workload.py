"""A hand-written GEMM program in TTNN's default 2-D multicast style, and TTNN's default config.

`gemm_program(arch, cfg)` builds what `MatmulMultiCoreReuseMultiCastProgramConfig` runs
(ttnn `matmul_multicore_reuse_mcast_2d_program_factory.cpp` with the
`reader_bmm_tile_layout_in0_sender/receiver` and `reader_bmm_tile_layout_in1_sender_writer` /
`in1_receiver_writer` kernels): core (x, y) of a gx x gy grid owns a `per_core_M x per_core_N`
tile block of C, walked as `out_block_h x out_block_w` output blocks, each over K in blocks of
`in0_block_w` tiles.
- reader (in0): cores of the left column read each A block from DRAM, wait until every receiver
  in their row has reserved a slot (receivers increment the sender's semaphore), multicast the
  block along the row (linked), then multicast the VALID flag; receivers wait for it.
- writer (in1 + output): cores of the top row do the same with B blocks down their column; then
  every core writes its finished output block to DRAM.
- compute: per K block wait for both inputs, one block matmul into the accumulator, pop; after
  the last K block pack the accumulator into the output CB.
in0/in1 CBs hold two blocks when there is more than one block to walk (double buffering).

`ttnn_default_config` reproduces TTNN's choice when no program config is given and all tensors
are DRAM-interleaved (tenstorrent.md §3): per_core_M = ceil(Mt / grid_y), per_core_N =
ceil(Nt / grid_x), in0_block_w = Kt / grid_x if that divides else 1, then
`get_multi_dim_per_core_factor`: if the estimated CBs do not fit `l1.usable_bytes`, try k from
in0_block_w down through its divisors and, for each, output blocks (m | per_core_M, n | per_core_N,
the squarest pair per product m*n) from the largest product down; take the first that fits.
The estimate is TTNN's `get_estimated_size_of_cbs` without bias:
`m*k*2*tile_a + n*k*2*tile_b + m*n*tile_a + m*n*interm`, interm = float32 tile bytes with fp32
accumulation, else max(bfloat16 tile bytes, output tile bytes). The subblock is the first of
TTNN's (h, w) list that divides the output block (h*w <= 4 with fp32 accumulation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from loom.arch import Arch
from loom.backend.program import (
    CB,
    Affine,
    Barrier,
    Buffer,
    CbPop,
    CbPush,
    CbReserve,
    CbWait,
    Copy,
    CoreGroup,
    DramRead,
    DramWrite,
    Instr,
    Loop,
    Matmul,
    Multicast,
    Program,
    Ref,
    Semaphore,
    SemInc,
    SemSet,
    SemWait,
    Tensor,
    cx,
    cy,
)
from loom.baselines.ttnn_matmul import CbModel, interm_tile_bytes, matmul_subblock, multi_dim_per_core_factor
from loom.mapping.engines import MATMUL_ENGINE_NOCS


@dataclass(frozen=True)
class GemmConfig:
    """A 2-D multicast GEMM: C[M, N] = A[M, K] @ B[K, N], block sizes in tiles."""

    M: int
    K: int
    N: int
    grid: tuple[int, int]
    per_core_M: int
    per_core_N: int
    in0_block_w: int
    out_block_h: int
    out_block_w: int
    out_subblock: tuple[int, int]
    dtype: str = "bfloat16"
    out_dtype: str = "bfloat16"
    acc_dtype: str = "bfloat16"
    fidelity: str | None = None

    @property
    def flops(self) -> float:
        """2 M N K."""
        return 2.0 * self.M * self.N * self.K

    def describe(self) -> str:
        """One line: grid and blocks."""
        return (f"grid {self.grid[0]}x{self.grid[1]}, per core {self.per_core_M}x{self.per_core_N} tiles, "
                f"out block {self.out_block_h}x{self.out_block_w}, in0_block_w {self.in0_block_w}, "
                f"subblock {self.out_subblock[0]}x{self.out_subblock[1]}, {self.dtype} {self.fidelity}")


def ttnn_default_config(arch: Arch, M: int, K: int, N: int, dtype: str = "bfloat16",
                        out_dtype: str | None = None, fidelity: str | None = None, fp32_acc: bool = False,
                        grid: tuple[int, int] | None = None) -> GemmConfig:
    """TTNN's default 2-D multicast config for DRAM-interleaved operands on `arch`'s full grid
    (or on the top-left `grid` of it)."""
    tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
    mt, kt, nt = M // tr, K // tc, N // tc
    full = (arch.grid.dims[0], arch.grid.dims[1]) if len(arch.grid.dims) == 2 else (arch.grid.dims[0], 1)
    gx, gy = grid or full
    if gx > full[0] or gy > full[1]:
        raise ValueError(f"expected a grid within {arch.name}'s {full[0]}x{full[1]}, found {gx}x{gy}")
    pcm, pcn = -(-mt // gy), -(-nt // gx)
    kw = kt // gx if kt % gx == 0 else 1
    out_dtype = out_dtype or dtype
    tiles = arch.dtypes.tile_bytes
    interm = interm_tile_bytes(arch, out_dtype, fp32_acc)
    cb = CbModel(tiles[dtype], tiles[dtype], interm, 0, arch.l1.usable_bytes)
    m, n, k = multi_dim_per_core_factor(cb, pcm, pcn, kw, adjust_in0_block_w=True)
    sub = matmul_subblock(m, n, fp32_acc)
    fid = fidelity or arch.matrix_engine.default_fidelity[dtype]
    used = (-(-nt // pcn), -(-mt // pcm))
    acc = "float32" if interm == tiles["float32"] else "bfloat16"
    return GemmConfig(M, K, N, used, pcm, pcn, k, m, n, sub, dtype, out_dtype, acc, fid)


def gemm_program(arch: Arch, cfg: GemmConfig, name: str | None = None) -> Program:
    """The per-core program of `cfg` on `arch` (a 1-D ring uses grid (gx, 1))."""
    tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
    mt, kt, nt = cfg.M // tr, cfg.K // tc, cfg.N // tc
    gx, gy = cfg.grid
    one_d = len(arch.grid.dims) == 1
    if one_d and gy != 1:
        raise ValueError(f"expected grid (gx, 1) on the 1-D grid of {arch.name}, found {cfg.grid}")
    pcm, pcn, kw, obh, obw = cfg.per_core_M, cfg.per_core_N, cfg.in0_block_w, cfg.out_block_h, cfg.out_block_w
    if (mt != gy * pcm or nt != gx * pcn or kt % kw or pcm % obh or pcn % obw or cfg.M % tr or cfg.K % tc
            or cfg.N % tc):
        raise ValueError(f"expected Mt = grid_y * per_core_M, Nt = grid_x * per_core_N and blocks dividing "
                         f"their extents, found Mt {mt}, Kt {kt}, Nt {nt} with {cfg.describe()}")
    nbh, nbw, nk = pcm // obh, pcn // obw, kt // kw
    y = Affine.of(0) if one_d else cy

    def at(x: Affine | int, yy: Affine | int) -> tuple:
        return (x,) if one_d else (x, yy)

    bh, bw, kb = Affine.var("bh"), Affine.var("bw"), Affine.var("kb")
    row0 = y * pcm + bh * obh
    col0 = cx * pcn + bw * obw
    slots = 2 if nbh * nbw * nk > 1 else 1
    sh, sw = cfg.out_subblock
    cbs = (CB("in0", cfg.dtype, obh, kw, slots), CB("in1", cfg.dtype, kw, obw, slots),
           CB("out", cfg.out_dtype, sh, sw, (obh // sh) * (obw // sw)))
    bufs = (Buffer("acc", cfg.acc_dtype, obh, obw),)
    sems = tuple(Semaphore(s) for s in ("in0_sender", "in0_receiver", "in1_sender", "in1_receiver"))

    def send(cb: str, read: DramRead, ndest: int, lo: tuple, hi: tuple, prefix: str) -> list[Instr]:
        body: list[Instr] = [CbReserve(cb), read, Barrier()]
        if ndest:
            body += [SemWait(f"{prefix}_sender", ndest), SemSet(f"{prefix}_sender", 0),
                     Multicast(lo, hi, cb), SemSet(f"{prefix}_receiver", 1, lo=lo, hi=hi), Barrier()]
        return body + [CbPush(cb)]

    def receive(cb: str, sender: tuple, prefix: str) -> list[Instr]:
        return [CbReserve(cb), SemSet(f"{prefix}_receiver", 0), SemInc(f"{prefix}_sender", 1, core=sender),
                SemWait(f"{prefix}_receiver", 1), CbPush(cb)]

    def nest(inner: list[Instr], after: list[Instr] = ()) -> tuple[Instr, ...]:
        return (Loop("bh", nbh, (Loop("bw", nbw, (Loop("kb", nk, tuple(inner)), *after)),)),)

    read_a = DramRead("A", (row0, kb * kw), "in0", obh, kw)
    read_b = DramRead("B", (kb * kw, col0), "in1", kw, obw)
    in0_send = nest(send("in0", read_a, gx - 1, at(1, y), at(gx - 1, y), "in0"))
    in0_recv = nest(receive("in0", at(0, y), "in0"))
    si, sj = Affine.var("si"), Affine.var("sj")
    write_sub = (CbWait("out"), DramWrite("C", (row0 + si * sh, col0 + sj * sw), "out", sh, sw), Barrier(),
                 CbPop("out"))
    output = [Loop("si", obh // sh, (Loop("sj", obw // sw, write_sub),))]
    in1_send = nest(send("in1", read_b, gy - 1, at(cx, 1), at(cx, gy - 1), "in1"), output)
    in1_recv = nest(receive("in1", at(cx, 0), "in1"), output)

    def step(accumulate: bool) -> list[Instr]:
        return [CbWait("in0"), CbWait("in1"),
                Matmul(Ref("in0"), Ref("in1"), Ref("acc"), accumulate, cfg.fidelity,
                       subblock=cfg.out_subblock),
                CbPop("in0"), CbPop("in1")]

    # The last K block goes subblock by subblock and packs each finished subblock into the output
    # CB, so that the writer's DRAM writes overlap the rest of the block (as TTNN's kernel does).
    last = (CbReserve("out"),
            Matmul(Ref("in0", row=si * sh, rows=sh), Ref("in1", col=sj * sw, cols=sw),
                   Ref("acc", si * sh, sj * sw, sh, sw), nk > 1, cfg.fidelity),
            Copy(Ref("acc", si * sh, sj * sw, sh, sw), Ref("out")), CbPush("out"))
    compute_body: list[Instr] = []
    if nk > 1:
        compute_body += step(False)
    if nk > 2:
        compute_body.append(Loop("kb", nk - 2, tuple(step(True))))
    compute_body += [CbWait("in0"), CbWait("in1"), Loop("si", obh // sh, (Loop("sj", obw // sw, last),)),
                     CbPop("in0"), CbPop("in1")]
    compute = (Loop("bh", nbh, (Loop("bw", nbw, tuple(compute_body)),)),)

    members: dict[tuple[bool, bool], list[tuple]] = {}
    for yy in range(gy):
        for xx in range(gx):
            members.setdefault((xx == 0, yy == 0), []).append(at(xx, yy))
    groups = []
    for (a_sender, b_sender), cores in members.items():
        groups.append(CoreGroup(
            cores=tuple(cores), cbs=cbs, buffers=bufs, semaphores=sems,
            reader=in0_send if a_sender else in0_recv, compute=compute,
            writer=in1_send if b_sender else in1_recv,
            name=f"{'A sender' if a_sender else 'A receiver'}, {'B sender' if b_sender else 'B receiver'}"))
    tensors = (Tensor("A", (cfg.M, cfg.K), cfg.dtype), Tensor("B", (cfg.K, cfg.N), cfg.dtype),
               Tensor("C", (cfg.M, cfg.N), cfg.out_dtype, "output"))
    return Program(arch.name, tensors, tuple(groups), name or f"gemm_{cfg.M}x{cfg.K}x{cfg.N}",
                   meta={"flops": cfg.flops, "config": cfg}, engine_nocs=MATMUL_ENGINE_NOCS)


def gemm_grid_config(arch: Arch, M: int, K: int, N: int, grid: tuple[int, int], in0_block_w: int,
                     out_block: tuple[int, int] | None = None, dtype: str = "bfloat16",
                     fidelity: str | None = None) -> GemmConfig:
    """A config on an explicit grid (per_core = tiles / grid) for tests and small runs."""
    tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
    pcm, pcn = (M // tr) // grid[1], (N // tc) // grid[0]
    obh, obw = out_block or (pcm, pcn)
    sub = matmul_subblock(obh, obw, fp32_dest_acc=False)
    return GemmConfig(M, K, N, grid, pcm, pcn, in0_block_w, obh, obw, sub, dtype, dtype, "float32", fidelity)


def gemm_tflops(cfg: GemmConfig, cycles: float, clock_ghz: float) -> float:
    """TFLOPS of `cfg` finishing in `cycles` at `clock_ghz`."""
    return cfg.flops / (cycles / clock_ghz * 1e-9) / 1e12 if cycles else math.inf
