"""TTNN's 1-D multicast matmul with A multicast (`MatmulMultiCoreReuseMultiCast1DProgramConfig`,
mcast_in0 = True), the config TTNN's default picks for wide shapes, as a per-core program.

Core i of the `used` cores (row-major over a gx x gy rectangle of the grid) owns all Mt rows and
the N tiles [i * per_core_N, (i + 1) * per_core_N). The first core reads each A block
(out_block_h x in0_block_w tiles) from DRAM and multicasts it to every other core (receivers
reserve a slot and increment the sender's semaphore; the sender multicasts the block, then the
VALID flag), as the 2-D program's row multicast does; every core reads its own B block
(in0_block_w x out_block_w) from DRAM on its writer, computes, and writes its output block
subblock by subblock. Same compute body as `loom.sim.gemm_workload.gemm_program`.
"""

from __future__ import annotations

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


def gemm_1d_in0_program(arch: Arch, cfg, rect: tuple[int, int]) -> Program:
    """`cfg` a `loom.sim.gemm_workload.GemmConfig` whose grid is (used cores, 1); `rect` = (gx, gy)
    with gx * gy = used cores, laid out row-major."""
    tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
    mt, kt, nt = cfg.M // tr, cfg.K // tc, cfg.N // tc
    gx, gy = rect
    used = gx * gy
    pcm, pcn, kw, obh, obw = cfg.per_core_M, cfg.per_core_N, cfg.in0_block_w, cfg.out_block_h, cfg.out_block_w
    if mt != pcm or nt != used * pcn or kt % kw or pcm % obh or pcn % obw:
        raise ValueError(f"expected Mt = per_core_M, Nt = cores * per_core_N and dividing blocks, found "
                         f"{cfg.describe()} on {used} cores")
    nbh, nbw, nk = pcm // obh, pcn // obw, kt // kw
    bh, bw, kb = Affine.var("bh"), Affine.var("bw"), Affine.var("kb")
    row0 = bh * obh
    col0 = (cy * gx + cx) * pcn + bw * obw
    slots = 2 if nbh * nbw * nk > 1 else 1
    sh, sw = cfg.out_subblock
    cbs = (CB("in0", cfg.dtype, obh, kw, slots), CB("in1", cfg.dtype, kw, obw, slots),
           CB("out", cfg.out_dtype, sh, sw, (obh // sh) * (obw // sw)))
    bufs = (Buffer("acc", cfg.acc_dtype, obh, obw),)
    sems = tuple(Semaphore(s) for s in ("in0_sender", "in0_receiver"))
    lo, hi, sender = (0, 0), (gx - 1, gy - 1), (0, 0)

    def nest(inner: list[Instr], after: tuple = ()) -> tuple[Instr, ...]:
        return (Loop("bh", nbh, (Loop("bw", nbw, (Loop("kb", nk, tuple(inner)), *after)),)),)

    send: list[Instr] = [CbReserve("in0"), DramRead("A", (row0, kb * kw), "in0", obh, kw), Barrier()]
    if used > 1:
        send += [SemWait("in0_sender", used - 1), SemSet("in0_sender", 0), Multicast(lo, hi, "in0"),
                 SemSet("in0_receiver", 1, lo=lo, hi=hi), Barrier()]
    send.append(CbPush("in0"))
    receive = [CbReserve("in0"), SemSet("in0_receiver", 0), SemInc("in0_sender", 1, core=sender),
               SemWait("in0_receiver", 1), CbPush("in0")]
    si, sj = Affine.var("si"), Affine.var("sj")
    write_sub = (CbWait("out"), DramWrite("C", (row0 + si * sh, col0 + sj * sw), "out", sh, sw), Barrier(),
                 CbPop("out"))
    output = (Loop("si", obh // sh, (Loop("sj", obw // sw, write_sub),)),)
    writer = nest([CbReserve("in1"), DramRead("B", (kb * kw, col0), "in1", kw, obw), Barrier(), CbPush("in1")],
                  output)

    def step(accumulate: bool) -> list[Instr]:
        return [CbWait("in0"), CbWait("in1"),
                Matmul(Ref("in0"), Ref("in1"), Ref("acc"), accumulate, cfg.fidelity, subblock=cfg.out_subblock),
                CbPop("in0"), CbPop("in1")]

    last = (CbReserve("out"),
            Matmul(Ref("in0", row=si * sh, rows=sh), Ref("in1", col=sj * sw, cols=sw),
                   Ref("acc", si * sh, sj * sw, sh, sw), nk > 1, cfg.fidelity),
            Copy(Ref("acc", si * sh, sj * sw, sh, sw), Ref("out")), CbPush("out"))
    body: list[Instr] = step(False) if nk > 1 else []
    if nk > 2:
        body.append(Loop("kb", nk - 2, tuple(step(True))))
    body += [CbWait("in0"), CbWait("in1"), Loop("si", obh // sh, (Loop("sj", obw // sw, last),)),
             CbPop("in0"), CbPop("in1")]
    compute = (Loop("bh", nbh, (Loop("bw", nbw, tuple(body)),)),)
    others = tuple((x, y) for y in range(gy) for x in range(gx) if (x, y) != sender)
    groups = [CoreGroup(cores=(sender,), cbs=cbs, buffers=bufs, semaphores=sems, reader=nest(send),
                        compute=compute, writer=writer, name="A sender")]
    if others:
        groups.append(CoreGroup(cores=others, cbs=cbs, buffers=bufs, semaphores=sems, reader=nest(receive),
                                compute=compute, writer=writer, name="A receiver"))
    tensors = (Tensor("A", (cfg.M, cfg.K), cfg.dtype), Tensor("B", (cfg.K, cfg.N), cfg.dtype),
               Tensor("C", (cfg.M, cfg.N), cfg.out_dtype, "output"))
    return Program(arch.name, tensors, tuple(groups), f"gemm1d_{cfg.M}x{cfg.K}x{cfg.N}",
                   meta={"flops": cfg.flops, "config": cfg})
