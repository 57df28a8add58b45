"""TTNN's default matmul program-config selection, reimplemented in Python.

Loom compares its results against TTNN run *without* a program config. This module reproduces
the config TTNN then picks: `create_simple_matmul_program_config` for DRAM- or L1-interleaved
inputs with no user grid, and `get_mcast_1d_config`, which it calls. The specification is
shared/reference/tenstorrent.md §3 ("Default selection when no program_config is given",
"`get_mcast_1d_config`", "Subblock choice", "Default compute config"); where the summary there
is terse, the upstream source it cites (tt-metal `ttnn/cpp/ttnn/operations/matmul/device/config/
matmul_program_config.cpp` and `device/utilities/matmul_utilities.cpp`) settles the detail, and the
comment says so.

Hardware numbers (grid, usable L1, tile bytes, tile shape, default fidelity) come from the
architecture description (`loom.arch.load_arch`); the constants written here are TTNN's own
algorithm constants, each citing the section that states it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from loom.arch import Arch, load_arch

MatmulKind = Literal["mcast_2d", "mcast_1d_in0", "mcast_1d_in1", "reuse", "no_reuse"]
Buffer = Literal["dram", "l1"]

# --- TTNN algorithm constants (not hardware numbers) -------------------------------------------
IN0_BLOCK_W_START = 2
"""tenstorrent.md §3.1: "Start with in0_block_w = 2"."""
PER_CORE_FACTORS = (16, 8, 4, 2)
"""tenstorrent.md §3.1: per_core_M = per_core_N = the first f in {16, 8, 4, 2} whose CBs fit, else 1."""
NARROW_RATIO = 8
"""tenstorrent.md §3.1: narrow when max(M,N)/min(M,N) > 8 (`NARROW_SHAPE_RATIO_THRESHOLD`)."""
CB_BUFFERING_DEPTH = 2
"""tenstorrent.md §3.1 CB estimate: the in0/in1 blocks are double-buffered (the `·2` terms)."""
SUBBLOCK_CHOICES = (
    (4, 2), (2, 4), (8, 1), (1, 8), (7, 1), (1, 7), (3, 2), (2, 3), (6, 1), (1, 6),
    (5, 1), (1, 5), (2, 2), (4, 1), (1, 4), (3, 1), (1, 3), (2, 1), (1, 2), (1, 1),
)
"""tenstorrent.md §3.3: (h, w) pairs walked in this order; the first dividing the block wins."""
FP32_ACC_MAX_SUBBLOCK = 4
"""tenstorrent.md §3.3 (and §1 DST register): skip h·w > 4 when fp32 accumulation is on."""
FALLBACK_2D_SUBBLOCK = (4, 2)
"""tenstorrent.md §3.1: "In 2D otherwise: out_subblock = (4,2), becoming h = 1 unless per_core_N = 2"."""


@dataclass(frozen=True)
class MatmulConfig:
    """The program config TTNN picks for one matmul, in tiles, plus why (`notes`).

    `grid` is (x, y) = (columns, rows) of the core grid the config names. `per_core_M/N` is the
    output block each core owns; `out_block_h/w` the sub-block of it computed per pass (after L1
    shrinking); `in0_block_w` the K tiles per step; `num_blocks_k` = ceil(Kt / in0_block_w).
    For `no_reuse` (`MatmulMultiCoreProgramConfig`, which has no fields) the block fields are
    nominal single tiles and the notes give the real work split. `reuse`
    (`MatmulMultiCoreReuseProgramConfig`) belongs to the user-grid and sharded paths, which the
    default selection modelled here never takes; the kind exists so callers can name it.
    """

    kind: MatmulKind
    grid: tuple[int, int]
    per_core_M: int
    per_core_N: int
    in0_block_w: int
    out_block_h: int
    out_block_w: int
    out_subblock_h: int
    out_subblock_w: int
    fidelity: str
    fp32_dest_acc: bool
    num_blocks_k: int
    notes: tuple[str, ...]


# --- shared helpers (also used by ttnn_sdpa) ----------------------------------------------------

def resolve_arch(arch: Arch | str) -> Arch:
    """An `Arch` as given, or loaded by name/path."""
    return arch if isinstance(arch, Arch) else load_arch(arch)


def grid_xy(arch: Arch) -> tuple[int, int]:
    """The worker grid as (x, y); TTNN's selection is defined for 2-D grids only."""
    dims = arch.grid.dims
    if len(dims) != 2:
        raise ValueError(f"TTNN's program-config selection needs a 2-D worker grid; architecture "
                         f"'{arch.name}' has grid.dims = {dims}")
    return dims[0], dims[1]


def tile_bytes(arch: Arch, dtype: str) -> int:
    """Bytes of one tile of `dtype` on `arch`; a clear error for a dtype the arch does not list."""
    table = arch.dtypes.tile_bytes
    if dtype not in table:
        raise ValueError(f"unknown dtype '{dtype}' for architecture '{arch.name}'; "
                         f"expected one of {', '.join(table)}")
    return table[dtype]


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


# --- the CB estimate and L1 fitting -------------------------------------------------------------

@dataclass(frozen=True)
class CbModel:
    """TTNN's L1 estimate of a matmul's circular buffers (tenstorrent.md §3.1 CB estimate).

    size = pcM·in0_bw·2·tileA + pcN·in0_bw·2·tileB + pcM·pcN·tileA + pcM·pcN·interm + pcN·bias.
    The output CB is sized with A's tile (upstream `get_estimated_size_of_cbs`: "use as estimate
    for output as well"). A config fits when size < usable L1, strictly (upstream `size < max_l1_space`).
    """

    tile_a: int
    tile_b: int
    interm: int
    bias: int
    l1_bytes: int

    def size(self, pc_m: int, pc_n: int, in0_block_w: int) -> int:
        return (pc_m * in0_block_w * CB_BUFFERING_DEPTH * self.tile_a
                + pc_n * in0_block_w * CB_BUFFERING_DEPTH * self.tile_b
                + pc_m * pc_n * self.tile_a
                + pc_m * pc_n * self.interm
                + pc_n * self.bias)

    def fits(self, pc_m: int, pc_n: int, in0_block_w: int) -> bool:
        return self.size(pc_m, pc_n, in0_block_w) < self.l1_bytes


def interm_tile_bytes(arch: Arch, out_dtype: str, fp32_dest_acc: bool) -> int:
    """tenstorrent.md §3.1: interm = FP32 tile with fp32 accumulation, else max(BF16 tile, out tile)."""
    if fp32_dest_acc:
        return tile_bytes(arch, "float32")
    return max(tile_bytes(arch, "bfloat16"), tile_bytes(arch, out_dtype))


def per_core_factor(cb: CbModel, in0_block_w: int) -> int:
    """The first f in {16, 8, 4, 2} with CBs of an f×f block fitting L1, else 1 (§3.1)."""
    for f in PER_CORE_FACTORS:
        if cb.fits(f, f, in0_block_w):
            return f
    return 1


def multi_dim_per_core_factor(cb: CbModel, per_core_M: int, per_core_N: int, in0_block_w: int,
                              adjust_in0_block_w: bool) -> tuple[int, int, int]:
    """`get_multi_dim_per_core_factor` (tenstorrent.md §3.1): shrink (out_block_h, out_block_w, k).

    If the whole per-core block fits, keep it. Otherwise enumerate divisor pairs (m | pcM,
    n | pcN), keeping per product the most square pair (a later pair with an equal ratio
    replaces an earlier one, as upstream's `existing_ratio < ratio` test does); then scan k
    from in0_block_w down through its divisors (only k = in0_block_w unless
    `adjust_in0_block_w`), and within each k the products from largest down; the first fit wins.
    Nothing fitting gives (1, 1, 1).
    """
    if cb.fits(per_core_M, per_core_N, in0_block_w):
        return per_core_M, per_core_N, in0_block_w
    # Candidate factors in upstream's order: the value itself, 1, then divisors from v/2 down to 2.
    m_factors = [per_core_M, 1] + [f for f in range(per_core_M // 2, 1, -1) if per_core_M % f == 0]
    n_factors = [per_core_N, 1] + [f for f in range(per_core_N // 2, 1, -1) if per_core_N % f == 0]
    by_product: dict[int, tuple[int, int]] = {}
    for m in m_factors:
        for n in n_factors:
            ratio = max(m, n) / min(m, n)
            existing = by_product.get(m * n)
            if existing is not None and max(existing) / min(existing) < ratio:
                continue
            by_product[m * n] = (m, n)
    min_k = 1 if adjust_in0_block_w else in0_block_w
    for k in range(in0_block_w, min_k - 1, -1):
        if in0_block_w % k:
            continue
        for product in sorted(by_product, reverse=True):
            m, n = by_product[product]
            if cb.fits(m, n, k):
                return m, n, k
    return 1, 1, 1


def matmul_subblock(block_h: int, block_w: int, fp32_dest_acc: bool) -> tuple[int, int]:
    """`get_matmul_subblock_params` (tenstorrent.md §3.3) for an unsharded output.

    Walk SUBBLOCK_CHOICES in order, skipping h·w > 4 under fp32 accumulation; return the first
    (h, w) with h | block_h and w | block_w; (1, 1) always qualifies.
    """
    for h, w in SUBBLOCK_CHOICES:
        if fp32_dest_acc and h * w > FP32_ACC_MAX_SUBBLOCK:
            continue
        if block_h % h == 0 and block_w % w == 0:
            return h, w
    return 1, 1  # unreachable: (1, 1) is in the list


def is_narrow_shape(height: int, width: int, all_dram: bool, tile: int) -> tuple[bool, str]:
    """tenstorrent.md §3.1 narrow test on per-batch M (height) and N (width), in elements.

    The ratio is an integer division, as upstream computes it in uint32 (`height / width`):
    a ratio of 8.5 counts as 8, not narrow.
    """
    ratio = max(height, width) // min(height, width)
    if ratio > NARROW_RATIO:
        hi, lo = max(height, width), min(height, width)
        return True, f"max(M,N)/min(M,N) = {hi}/{lo} = {ratio} > {NARROW_RATIO}"
    if all_dram and min(height, width) <= tile:
        return True, f"all tensors in DRAM and min(M,N) = {min(height, width)} <= {tile} (one tile)"
    why = f"max(M,N)/min(M,N) = {ratio} <= {NARROW_RATIO}"
    if all_dram:
        why += f" and min(M,N) = {min(height, width)} > {tile}"
    return False, why


# --- the two config builders --------------------------------------------------------------------

@dataclass(frozen=True)
class _Problem:
    """One matmul, normalised: padded sizes in elements and tiles, dtypes, L1 model."""

    M: int  # per-batch rows of A, padded to whole tiles
    K: int
    N: int
    Mt: int
    Kt: int
    Nt: int
    batch_a: int
    batch_b: int
    grid: tuple[int, int]
    cb: CbModel
    fidelity: str
    fp32_dest_acc: bool
    dtype: str
    tile_rows: int
    tile_cols: int


def _problem(M: int, K: int, N: int, batch_a: int, batch_b: int, dtype: str, arch: Arch,
             out_dtype: str | None, fp32_dest_acc: bool | None, bias_dtype: str | None) -> _Problem:
    for name, value in (("M", M), ("K", K), ("N", N), ("batch_a", batch_a), ("batch_b", batch_b)):
        if value < 1:
            raise ValueError(f"expected {name} >= 1, found {value}")
    if batch_b not in (1, batch_a) and batch_a != 1:
        raise ValueError(f"batch_b must be 1, equal batch_a, or batch_a must be 1; "
                         f"found batch_a = {batch_a}, batch_b = {batch_b}")
    grid = grid_xy(arch)
    out = out_dtype or dtype  # upstream: output dtype defaults to A's dtype
    # tenstorrent.md §3 Default compute config: fp32_dest_acc = (output is FP32).
    acc = (out == "float32") if fp32_dest_acc is None else fp32_dest_acc
    fidelities = arch.matrix_engine.default_fidelity
    if dtype not in fidelities:
        raise ValueError(f"architecture '{arch.name}' gives no default fidelity for dtype '{dtype}'; "
                         f"expected one of {', '.join(fidelities)}")
    tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
    Mt, Kt, Nt = ceil_div(M, tr), ceil_div(K, tc), ceil_div(N, tc)
    cb = CbModel(tile_a=tile_bytes(arch, dtype), tile_b=tile_bytes(arch, dtype),
                 interm=interm_tile_bytes(arch, out, acc),
                 bias=tile_bytes(arch, bias_dtype) if bias_dtype else 0,
                 l1_bytes=arch.l1.usable_bytes)
    return _Problem(M=Mt * tr, K=Kt * tc, N=Nt * tc, Mt=Mt, Kt=Kt, Nt=Nt, batch_a=batch_a,
                    batch_b=batch_b, grid=grid, cb=cb, fidelity=fidelities[dtype],
                    fp32_dest_acc=acc, dtype=dtype, tile_rows=tr, tile_cols=tc)


def _header(p: _Problem) -> list[str]:
    notes = [f"tiles: Mt={p.Mt}, Kt={p.Kt}, Nt={p.Nt} (padded M={p.M}, K={p.K}, N={p.N}"
             + (f", batch A={p.batch_a}, B={p.batch_b}" if p.batch_a > 1 or p.batch_b > 1 else "") + ")",
             f"fidelity {p.fidelity}: the architecture's default for {p.dtype} inputs with no program "
             f"config (§3 Default compute config); fp32 accumulation "
             + ("on" if p.fp32_dest_acc else "off")]
    return notes


def _mcast_1d(p: _Problem, mcast_in0: bool, notes: list[str]) -> MatmulConfig:
    """`get_mcast_1d_config` (tenstorrent.md §3.2) with fuse_batch = false and an unsharded output."""
    gx, gy = p.grid
    cores = gx * gy
    tr, tc = p.tile_rows, p.tile_cols
    if mcast_in0:
        per_core_M = p.Mt
        per_core_N = ceil_div(ceil_div(p.N, cores), tc)
        notes.append(f"1-D mcast of A: per_core_M = Mt = {per_core_M}; per_core_N = "
                     f"ceil(ceil(N/{cores} cores)/{tc}) = ceil({ceil_div(p.N, cores)}/{tc}) = {per_core_N}")
    else:
        per_core_M = ceil_div(ceil_div(p.M, cores), tr)
        per_core_N = p.Nt
        notes.append(f"1-D mcast of B: per_core_M = ceil(ceil(M/{cores} cores)/{tr}) = "
                     f"ceil({ceil_div(p.M, cores)}/{tr}) = {per_core_M}; per_core_N = Nt = {per_core_N}")
    in0_block_w = IN0_BLOCK_W_START if p.Kt % 2 == 0 else 1
    notes.append(f"in0_block_w = {in0_block_w}: Kt = {p.Kt} is " + ("even" if p.Kt % 2 == 0 else "odd"))
    bh, bw, _ = multi_dim_per_core_factor(p.cb, per_core_M, per_core_N, in0_block_w, adjust_in0_block_w=False)
    notes.append(_block_note(p.cb, per_core_M, per_core_N, in0_block_w, bh, bw, in0_block_w, k_fixed=True))
    sh, sw = matmul_subblock(bh, bw, p.fp32_dest_acc)
    notes.append(_subblock_note(bh, bw, sh, sw, p.fp32_dest_acc))
    return MatmulConfig(kind="mcast_1d_in0" if mcast_in0 else "mcast_1d_in1", grid=(gx, gy),
                        per_core_M=per_core_M, per_core_N=per_core_N, in0_block_w=in0_block_w,
                        out_block_h=bh, out_block_w=bw, out_subblock_h=sh, out_subblock_w=sw,
                        fidelity=p.fidelity, fp32_dest_acc=p.fp32_dest_acc,
                        num_blocks_k=ceil_div(p.Kt, in0_block_w), notes=tuple(notes))


def _block_note(cb: CbModel, pc_m: int, pc_n: int, k0: int, bh: int, bw: int, k: int, k_fixed: bool) -> str:
    if (bh, bw, k) == (pc_m, pc_n, k0):
        return (f"L1: per-core block {pc_m}x{pc_n} with in0_block_w {k0} needs "
                f"{cb.size(pc_m, pc_n, k0):,} B < {cb.l1_bytes:,} B usable: no shrinking")
    fitted = cb.fits(bh, bw, k)
    return (f"L1: per-core block {pc_m}x{pc_n} with in0_block_w {k0} needs {cb.size(pc_m, pc_n, k0):,} B "
            f">= {cb.l1_bytes:,} B usable; get_multi_dim_per_core_factor shrinks to out_block "
            f"{bh}x{bw}" + ("" if k_fixed else f", in0_block_w {k}")
            + (f" ({cb.size(bh, bw, k):,} B)" if fitted else " (nothing fits: the (1,1,1) fallback)"))


def _subblock_note(bh: int, bw: int, sh: int, sw: int, fp32: bool) -> str:
    return (f"subblock {sh}x{sw}: first (h,w) of the ordered list dividing the {bh}x{bw} block"
            + (" among those with h·w <= 4 (fp32 accumulation)" if fp32 else ""))


def get_mcast_1d_config(M: int, K: int, N: int, *, mcast_in0: bool, arch: Arch | str,
                        dtype: str = "bfloat16", out_dtype: str | None = None,
                        fp32_dest_acc: bool | None = None, bias_dtype: str | None = None) -> MatmulConfig:
    """TTNN's `get_mcast_1d_config` on the full device grid (tenstorrent.md §3.2).

    `mcast_in0=True` multicasts A and splits N over the cores; False multicasts B and splits M.
    M is per batch (fuse_batch = false, as the simple path calls it). Sizes are in elements.
    """
    p = _problem(M, K, N, 1, 1, dtype, resolve_arch(arch), out_dtype, fp32_dest_acc, bias_dtype)
    return _mcast_1d(p, mcast_in0, _header(p))


def matmul_default_config(M: int, K: int, N: int, *, batch_a: int = 1, batch_b: int = 1,
                          dtype: str = "bfloat16", arch: Arch | str, out_dtype: str | None = None,
                          fp32_dest_acc: bool | None = None, bias_dtype: str | None = None,
                          buffer: Buffer = "dram") -> MatmulConfig:
    """The config TTNN picks for `ttnn.matmul(A, B)` with no program config and no core grid.

    A is [batch_a, M, K], B is [batch_b, K, N], sizes in elements (padded up to whole tiles);
    all three tensors are interleaved in `buffer` ("dram", the usual case, or "l1"). This is
    `create_simple_matmul_program_config` on the full device grid (tenstorrent.md §3.1, entry
    rule 0: A interleaved and no user grid). `out_dtype` defaults to `dtype`; `fp32_dest_acc`
    defaults to (output is float32); `bias_dtype` adds a bias CB to the L1 estimate.
    """
    a = resolve_arch(arch)
    p = _problem(M, K, N, batch_a, batch_b, dtype, a, out_dtype, fp32_dest_acc, bias_dtype)
    notes = _header(p)
    gx, gy = p.grid
    all_dram = buffer == "dram"
    tile = a.tiling.tile_rows

    # §3.1: A unbatched, B batched, everything interleaved -> 1-D mcast of B (A stays in L1).
    if p.batch_a == 1 and p.batch_b > 1:
        notes.append(f"batched B: batch(A) = 1, batch(B) = {p.batch_b}, all interleaved → 1-D mcast of B")
        return _mcast_1d(p, mcast_in0=False, notes=notes)

    narrow, why = is_narrow_shape(p.M, p.N, all_dram, tile)
    wide = narrow and p.N > p.M
    tall = narrow and not wide
    if narrow:
        notes.append(f"narrow: {why} → " + ("wide (N > M)" if wide else "tall (M >= N)"))
    else:
        notes.append(f"not narrow: {why}")

    in0_block_w = IN0_BLOCK_W_START
    factor = per_core_factor(p.cb, in0_block_w)
    if factor == PER_CORE_FACTORS[0]:
        size = p.cb.size(factor, factor, in0_block_w)
        notes.append(f"L1 fit: per-core factor {factor} (CB estimate {size:,} B "
                     f"< {p.cb.l1_bytes:,} B usable)")
    else:
        big = factor * 2 if factor > 1 else PER_CORE_FACTORS[-1]
        notes.append(f"L1 fit: per-core factor shrunk to {factor}: a {big}x{big} block needs "
                     f"{p.cb.size(big, big, in0_block_w):,} B >= {p.cb.l1_bytes:,} B usable")
    nby, nbx = ceil_div(p.Mt, factor), ceil_div(p.Nt, factor)
    notes.append(f"blocks: ceil(Mt/{factor}) = {nby} rows x ceil(Nt/{factor}) = {nbx} columns")
    if (nby > 1 or nbx > 1) and p.Kt % in0_block_w:
        in0_block_w = 1
        notes.append(f"odd Kt = {p.Kt} with more than one block → in0_block_w = 1")

    if all_dram or (nbx * nby <= gx * gy and p.Kt % in0_block_w == 0):
        # get_core_range: (nbx, nby) if it fits the grid and is not 1x1, else (0, 0).
        if not (nbx == 1 and nby == 1) and nby <= gy and nbx <= gx:
            cr_x, cr_y = nbx, nby
            notes.append(f"core range {cr_x}x{cr_y} fits the {gx}x{gy} grid")
        else:
            cr_x = cr_y = 0
            notes.append(f"core range 0: {nbx}x{nby} blocks " +
                         ("is a single block" if nbx == nby == 1 else f"exceed the {gx}x{gy} grid"))
        if cr_y == 1 or wide:
            notes.append("→ 1-D mcast of A: " + ("shape is wide" if wide else "core range has one row"))
            return _mcast_1d(p, mcast_in0=True, notes=notes)
        if cr_x == 1 or tall:
            notes.append("→ 1-D mcast of B: " + ("shape is tall" if tall else "core range has one column"))
            return _mcast_1d(p, mcast_in0=False, notes=notes)
        if all_dram:
            notes.append(f"→ 2-D mcast on the full {gx}x{gy} grid: all tensors DRAM-interleaved, "
                         f"no 1-D rule fired")
            return _mcast_2d_dram(p, notes)
        if cr_y > 0:
            notes.append(f"→ 2-D mcast: core range {cr_x}x{cr_y} > 0 within the grid")
            return _mcast_2d_l1(p, factor, in0_block_w, notes)
        notes.append("not all-DRAM-interleaved and core range 0: no multicast config applies")
    else:
        why = (f"{nbx * nby} blocks > {gx * gy} cores" if nbx * nby > gx * gy else
               f"Kt = {p.Kt} is not a multiple of in0_block_w = {in0_block_w}")
        notes.append(f"not all-DRAM-interleaved and {why}: no multicast config applies")
    return _no_reuse(p, notes)


def _mcast_2d_dram(p: _Problem, notes: list[str]) -> MatmulConfig:
    """§3.1 "In 2D with all tensors DRAM-interleaved": re-derive the blocks from the full grid."""
    gx, gy = p.grid
    if p.Kt % gx == 0:
        k0 = p.Kt // gx
        notes.append(f"in0_block_w = Kt/grid_x = {p.Kt}/{gx} = {k0}")
    else:
        k0 = 1
        notes.append(f"in0_block_w = 1: Kt = {p.Kt} is not a multiple of grid_x = {gx}")
    pc_m, pc_n = ceil_div(p.Mt, gy), ceil_div(p.Nt, gx)
    notes.append(f"per_core_M = ceil(Mt/grid_y) = ceil({p.Mt}/{gy}) = {pc_m}, "
                 f"per_core_N = ceil(Nt/grid_x) = ceil({p.Nt}/{gx}) = {pc_n}")
    bh, bw, k = multi_dim_per_core_factor(p.cb, pc_m, pc_n, k0, adjust_in0_block_w=True)
    notes.append(_block_note(p.cb, pc_m, pc_n, k0, bh, bw, k, k_fixed=False))
    sh, sw = matmul_subblock(bh, bw, p.fp32_dest_acc)
    notes.append(_subblock_note(bh, bw, sh, sw, p.fp32_dest_acc))
    return MatmulConfig(kind="mcast_2d", grid=(gx, gy), per_core_M=pc_m, per_core_N=pc_n, in0_block_w=k,
                        out_block_h=bh, out_block_w=bw, out_subblock_h=sh, out_subblock_w=sw,
                        fidelity=p.fidelity, fp32_dest_acc=p.fp32_dest_acc,
                        num_blocks_k=ceil_div(p.Kt, k), notes=tuple(notes))


def _mcast_2d_l1(p: _Problem, factor: int, in0_block_w: int, notes: list[str]) -> MatmulConfig:
    """§3.1 "In 2D otherwise": per-core factor blocks, subblock (4,2) with h = 1 unless per_core_N = 2."""
    gx, gy = p.grid
    sh, sw = FALLBACK_2D_SUBBLOCK
    if sw != factor:
        sh = 1
    if factor % sh or factor % sw:
        # Upstream's sanity check (`per_core_M % out_subblock_h == 0`, same for N) rejects this.
        raise ValueError(f"TTNN would reject this matmul: the L1-interleaved 2-D rule gives subblock "
                         f"{sh}x{sw}, which does not divide the {factor}x{factor} per-core block")
    notes.append(f"per_core_M = per_core_N = {factor}, in0_block_w = {in0_block_w}; subblock {sh}x{sw} "
                 f"(the fixed (4,2), h = 1 since per_core_N != 2)" if sh == 1 else
                 f"per_core_M = per_core_N = {factor}, in0_block_w = {in0_block_w}; subblock (4,2)")
    return MatmulConfig(kind="mcast_2d", grid=(gx, gy), per_core_M=factor, per_core_N=factor,
                        in0_block_w=in0_block_w, out_block_h=factor, out_block_w=factor,
                        out_subblock_h=sh, out_subblock_w=sw, fidelity=p.fidelity,
                        fp32_dest_acc=p.fp32_dest_acc, num_blocks_k=ceil_div(p.Kt, in0_block_w),
                        notes=tuple(notes))


def _no_reuse(p: _Problem, notes: list[str]) -> MatmulConfig:
    """§3.1 fallback: `MatmulMultiCoreProgramConfig` (no reuse, one output tile at a time)."""
    gx, gy = p.grid
    tiles = p.batch_a * p.Mt * p.Nt
    notes.append(f"→ fallback MatmulMultiCoreProgramConfig (no reuse): {tiles} output tiles split over "
                 f"{gx * gy} cores, at most {ceil_div(tiles, gx * gy)} per core, each over Kt = {p.Kt} "
                 f"single-tile K steps; block fields are nominal single tiles")
    return MatmulConfig(kind="no_reuse", grid=(gx, gy), per_core_M=1, per_core_N=1, in0_block_w=1,
                        out_block_h=1, out_block_w=1, out_subblock_h=1, out_subblock_w=1,
                        fidelity=p.fidelity, fp32_dest_acc=p.fp32_dest_acc, num_blocks_k=p.Kt,
                        notes=tuple(notes))


# --- the partials buffer TTNN really allocates --------------------------------------------------

@dataclass(frozen=True)
class Intermediate:
    """TTNN's partials CB (`interm0`, c_5) for a multicast matmul, and the L1 its CBs really take.

    tt-metal `ttnn/cpp/ttnn/operations/matmul/device/factory/matmul_multicore_reuse_mcast_2d_program_factory.cpp`
    (commit 043b5ac261d74cd5543a2d73edd684ac5446bdc1), `create_program_mcast_in0_in1`:
    packer L1 accumulation runs when it is configured and there are more than two K blocks (more
    than one in the 1-D factory); interm0 is then Float32 with fp32 accumulation, else Float16_b;
    without it, Float32 with fp32 accumulation, else the output's format. When interm0's format
    equals the output's, interm0 and the output CB are one buffer of out_block_h x out_block_w
    tiles (no double buffering); otherwise two. in0 and in1 blocks are double-buffered when there
    is more than one K block. `cb_bytes` is what the factory allocates, unlike `CbModel`, the
    config selection's conservative estimate, which always counts output and partials apart.
    """

    dtype: str
    shared_with_output: bool
    cb_bytes: int


def intermediate(cfg: MatmulConfig, arch: Arch | str, dtype: str = "bfloat16", out_dtype: str | None = None,
                 packer_l1_acc: bool | None = None) -> Intermediate:
    """TTNN's interm0 for `cfg` (a multicast config); `packer_l1_acc` defaults to TTNN's default
    compute config, on unless the output is float32 (tenstorrent.md §3 Default compute config)."""
    a = resolve_arch(arch)
    out = out_dtype or dtype
    l1_acc = (out != "float32") if packer_l1_acc is None else packer_l1_acc
    l1_acc_blocks = 2 if cfg.kind == "mcast_2d" else 1
    if cfg.fp32_dest_acc:
        interm = "float32"
    else:
        interm = "bfloat16" if l1_acc and cfg.num_blocks_k > l1_acc_blocks else out
    shared = interm == out
    depth = CB_BUFFERING_DEPTH if cfg.num_blocks_k > 1 else 1
    block = cfg.out_block_h * cfg.out_block_w
    cb_bytes = ((cfg.out_block_h + cfg.out_block_w) * cfg.in0_block_w * depth * tile_bytes(a, dtype)
                + block * tile_bytes(a, out) + (0 if shared else block * tile_bytes(a, interm)))
    return Intermediate(interm, shared, cb_bytes)
