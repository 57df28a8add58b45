"""TTNN hand-tuned GEMM: the program configs the GEMM_FLOPS report's test builds by hand.

tt-metal `tech_reports/GEMM_FLOPS/GEMM_FLOPS.md` publishes measured results for manually tuned
2-D multicast configs; its test (`tests/ttnn/unit_tests/benchmarks/test_benchmark.py`,
`test_matmul_2d_host_perf`, commit 58c4758bcc1d3975f543323ea278ff5d2230752e) builds each config
from a rule and two divisors:

- per_core_M = Mt / grid_y, per_core_N = Nt / grid_x (tiles), in0_block_w = Kt / grid_x / in0_block_w_div;
- out_block_h = per_core_M / num_out_blocks_h, out_block_w = per_core_N / num_out_blocks_w;
- out_subblock from the test's `get_subblock_sizes` (`report_subblock`);
- compute: fp32_dest_acc_en off, packer_l1_acc on, the row's math fidelity.

The report publishes the results, not the divisors; `report_rule_blocks` sweeps them and the
caller keeps the best simulated one, as the report kept its best. Both `loom.calibrate.gemm`
(the report's own points) and the bench's "TTNN hand-tuned" baseline (`hand_tuned_matmul_configs`)
use this one rule; they differ only in how a candidate's L1 is judged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from loom.arch import Arch
from loom.baselines.ttnn_matmul import MatmulConfig, ceil_div, grid_xy, intermediate, matmul_subblock

SWEEP_IN0_DIV = (1, 2, 4, 8, 16)
SWEEP_OUT_BLOCKS = ((1, 1), (1, 2), (2, 1), (2, 2), (1, 4), (4, 1), (2, 4), (4, 2), (4, 4), (4, 8), (8, 4),
                    (8, 8))
"""Divisors the report's tuning tables use (in0_block_w_div up to 8, num_out_blocks up to 4), and
one step further for the largest shapes (20480 x 26624 x 26624 on 13x10 fits nothing smaller). Per
in0_block_w_div the sweep keeps the first (num_out_blocks_h, num_out_blocks_w) in this order whose
buffers fit L1: splitting the output further only adds per-block overhead, and the report's tables
split it only to fit."""


@dataclass(frozen=True)
class HandTunedBlocks:
    """What the report test's rule picks for one candidate, in tiles, with the divisors that gave
    it (the per-core block is the caller's)."""

    in0_block_w: int
    out_block_h: int
    out_block_w: int
    out_subblock: tuple[int, int]
    in0_block_w_div: int
    num_out_blocks: tuple[int, int]

    def describe(self) -> str:
        return (f"in0_block_w_div {self.in0_block_w_div}, num_out_blocks {self.num_out_blocks[0]}x"
                f"{self.num_out_blocks[1]}: in0_block_w {self.in0_block_w}, out block {self.out_block_h}x"
                f"{self.out_block_w}, subblock {self.out_subblock[0]}x{self.out_subblock[1]}")


def report_subblock(h: int, w: int, out_sharded: bool) -> tuple[int, int]:
    """The report test's `get_subblock_sizes(out_block_h, out_block_w, out_sharded)` with fp32
    accumulation off: TTNN's subblock walk (`matmul_subblock`), and for a sharded output only
    subblocks one tile high whose width divides the block."""
    if not out_sharded:
        return matmul_subblock(h, w, fp32_dest_acc=False)
    return 1, matmul_subblock(1, w, fp32_dest_acc=False)[1]


def report_rule_blocks(per_core_M: int, per_core_N: int, k_per_core: int, fits: Callable[[HandTunedBlocks], bool],
                       out_sharded: bool = False) -> list[HandTunedBlocks]:
    """The rule's candidates for a per-core output block and K tiles per grid column (Kt / grid_x):
    one per in0_block_w_div dividing `k_per_core`, with the first output split in SWEEP_OUT_BLOCKS
    that `fits` accepts; a divisor with no fitting split gives none."""
    out = []
    for div in SWEEP_IN0_DIV:
        if k_per_core % div:
            continue
        for nh, nw in SWEEP_OUT_BLOCKS:
            if per_core_M % nh or per_core_N % nw:
                continue
            obh, obw = per_core_M // nh, per_core_N // nw
            if out_sharded and not (obw == per_core_N or obh == 1):
                continue  # matmul validation for a sharded output (the report test's comment)
            blocks = HandTunedBlocks(k_per_core // div, obh, obw, report_subblock(obh, obw, out_sharded), div,
                                     (nh, nw))
            if fits(blocks):
                out.append(blocks)
                break
    return out


def hand_tuned_matmul_configs(M: int, K: int, N: int, arch: Arch, dtype: str = "bfloat16") -> list[MatmulConfig]:
    """The report rule's candidates for a DRAM-interleaved GEMM on the full grid, as TTNN configs.

    Where a size is not a multiple of the grid (the report chose shapes that are), per_core_M and
    per_core_N round up and TTNN pads the last cores, as its default config does; K tiles per grid
    column become the largest divisor of Kt not above Kt / grid_x (in0_block_w must divide Kt).
    A candidate fits when the CBs TTNN allocates for it (`intermediate`, packer L1 accumulation
    on) fit usable L1. Fidelity: the architecture's default for the dtype, as Loom's own kernels
    run (the report's rows name theirs; like for like matters more here)."""
    gx, gy = grid_xy(arch)
    tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
    mt, kt, nt = ceil_div(M, tr), ceil_div(K, tc), ceil_div(N, tc)
    pcm, pcn = ceil_div(mt, gy), ceil_div(nt, gx)
    k_per_core = max(d for d in range(1, max(kt // gx, 1) + 1) if kt % d == 0)
    fidelity = arch.matrix_engine.default_fidelity[dtype]
    rule = (f"GEMM_FLOPS report test rule: per_core_M = ceil(Mt/grid_y) = ceil({mt}/{gy}) = {pcm}, "
            f"per_core_N = ceil(Nt/grid_x) = ceil({nt}/{gx}) = {pcn}, K tiles per grid column {k_per_core}"
            + ("" if kt % gx == 0 else f" (Kt = {kt} is not a multiple of grid_x = {gx}: the largest divisor "
                                       f"of Kt not above Kt/grid_x)")
            + f"; fp32 accumulation off, packer L1 accumulation on, {fidelity}")

    def config(b: HandTunedBlocks) -> MatmulConfig:
        return MatmulConfig(kind="mcast_2d", grid=(gx, gy), per_core_M=pcm, per_core_N=pcn, in0_block_w=b.in0_block_w,
                            out_block_h=b.out_block_h, out_block_w=b.out_block_w, out_subblock_h=b.out_subblock[0],
                            out_subblock_w=b.out_subblock[1], fidelity=fidelity, fp32_dest_acc=False,
                            num_blocks_k=ceil_div(kt, b.in0_block_w), notes=(rule, b.describe()))

    def fits(b: HandTunedBlocks) -> bool:
        return intermediate(config(b), arch, dtype, packer_l1_acc=True).cb_bytes < arch.l1.usable_bytes

    return [config(b) for b in report_rule_blocks(pcm, pcn, k_per_core, fits)]
