"""TTNN's default choices written as Loom Schedules, so they run through the same
materialization, per-core split and simulator as Loom's own choices (like for like).

- GEMM: `matmul_default_config` (2-D multicast: A along rows from the left column, B down the
  columns; 1-D: one operand multicast to every core). TTNN's L1-fitted output block
  (out_block_h x out_block_w tiles) and K block (in0_block_w tiles) are the block sizes, run as
  chosen: the kernel keeps its partials in TTNN's interm0 format, one buffer with the output when
  the formats match (`ttnn_matmul.intermediate`, `ttnn_gemm_kernels`); where TTNN's own CBs would
  not fit L1 the notes say so. TTNN
  launches one core per per-core block and pads the last ones (52 rows of tiles per core on
  Blackhole's 10 rows for 512); the schedule is written for that padded shape and run moving
  only the real tiles.
- Flash Attention: q_chunk = k_chunk = 32 and TTNN's batch -> heads -> Q-chunk core split. Where
  TTNN chains the cores of a (batch, head) (`ttnn_sdpa.kv_chains`), its cores run row-major as
  TTNN's do and K and V go down each chain: multicast from its first core, or forwarded core to
  core; elsewhere every core reads K and V.
- Causal attention (grouped K/V heads): TTNN's causal SDPA split, balanced in chunk pairs where
  TTNN balances it; the loop skips the chunks past the diagonal, as TTNN's kernel does.
- Flash Decode: TTNN's k_chunk rule and its batch/head split over cores (one core per head when
  there are enough heads; TTNN's cross-core reduction is not needed then).
- Attention core splits that no grid rectangle holds (128 of Blackhole's 13x10 cores) run on a
  virtual grid placed row-major on the real one, as TTNN lays its cores out (`Baseline.placed_on`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from loom.arch import Arch
from loom.backend.placement import virtual_arch
from loom.baselines.ttnn_gemm_kernels import GEMM_BY_PARTIALS
from loom.baselines.ttnn_matmul import MatmulConfig, ceil_div, intermediate, matmul_default_config
from loom.baselines.ttnn_sdpa import kv_chains, sdpa_decode_config, sdpa_prefill_config
from loom.mapping.engines import MATMUL_ENGINE_NOCS
from loom.schedule import Schedule, ScheduleError

TILE = 32


@dataclass
class Baseline:
    """A baseline's schedule, the architecture it is compiled for (the real one, or a virtual grid
    shaped by its core split) and, for a virtual grid, the real one its cores run on row-major
    (`loom.backend.placement`). `schedule.shape` may pad the real shape (`ttnn_gemm`). `kernel`,
    when set, is the Helion kernel to compile instead of the user's (TTNN's GEMM partials format)."""

    schedule: Schedule
    arch: Arch
    placed_on: Arch | None = None
    kernel: object | None = None
    engine_nocs: dict[str, int] | None = None  # the NoCs its kernels choose (`Program.engine_nocs`)


def _split_over_grid(dims: tuple[int, ...], sizes: list[int]) -> list[list[int]] | None:
    """Per axis, cores per physical dimension, so that axis a gets sizes[a] cores in total."""
    options = []
    for size in sizes:
        options.append([f for f in product(*[[d for d in range(1, n + 1) if size % d == 0] for n in dims])
                        if _prod(f) == size])
    for choice in product(*options):
        if all(_prod([c[d] for c in choice]) <= dims[d] for d in range(len(dims))):
            return [list(c) for c in choice]
    return None


def _prod(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def _schedule(kernel: str, arch: Arch, shape: dict, order: list[str], cores: dict[str, list[int]],
              transfers: dict, block_sizes: dict, note: str) -> Schedule:
    """A schedule whose level l of every physical dimension runs axis order[l]."""
    dims = len(arch.grid.dims)
    view = [[cores[axis][d] for axis in order] for d in range(dims)]
    spatial = {axis: [[d, level, view[d][level]] for d in range(dims) if view[d][level] > 1]
               for level, axis in enumerate(order)}
    name_levels = "_".join("xyz"[d] + "x".join(str(f) for f in view[d]) for d in range(dims))
    return Schedule(kernel=kernel, arch=arch.name, shape=dict(shape), candidate=f"ttnn:{name_levels}",
                    view=view, order=order, spatial=spatial, transfers=transfers, block_sizes=block_sizes,
                    knobs={}, source="baseline-ttnn", notes=[note])


def ttnn_gemm(shape: dict, arch: Arch, dtype: str = "bfloat16") -> Baseline:
    """TTNN's default matmul config (`gemm_baseline`)."""
    return gemm_baseline(matmul_default_config(shape["M"], shape["K"], shape["N"], arch=arch, dtype=dtype),
                         shape, arch, dtype)


def gemm_baseline(cfg: MatmulConfig, shape: dict, arch: Arch, dtype: str = "bfloat16",
                  packer_l1_acc: bool | None = None) -> Baseline:
    """A TTNN matmul config as a schedule. TTNN launches one core per per_core_M x per_core_N output
    block (a 1-D config: per row or column strip, laid out row-major over the grid) and pads the
    last ones; the schedule is written for the padded shape (`Schedule.shape`), and the run moves
    only the real tiles (`loom.run.run(valid=...)`), as TTNN's readers and writers do.
    `packer_l1_acc` as `ttnn_matmul.intermediate` takes it (None: TTNN's default compute config)."""
    k = shape["K"]
    mt, nt = ceil_div(shape["M"], TILE), ceil_div(shape["N"], TILE)
    blocks = {"tile_m": cfg.out_block_h * TILE, "tile_n": cfg.out_block_w * TILE, "tile_k": cfg.in0_block_w * TILE}
    if cfg.kind == "mcast_2d":  # M down the grid's rows (y), N along them (x)
        gx, gy = ceil_div(nt, cfg.per_core_N), ceil_div(mt, cfg.per_core_M)
        padded = {"M": gy * cfg.per_core_M * TILE, "N": gx * cfg.per_core_N * TILE, "K": k}
        order, cores = ["tile_m", "tile_n"], {"tile_m": [1, gy], "tile_n": [gx, 1]}
        transfers = {"x": {"mode": "row", "group": [gx, 1]}, "y": {"mode": "column", "group": [1, gy]}}
    elif cfg.kind in ("mcast_1d_in1", "mcast_1d_in0"):
        spread, other, dim, per_core = (("tile_m", "tile_n", "M", cfg.per_core_M) if cfg.kind == "mcast_1d_in1"
                                        else ("tile_n", "tile_m", "N", cfg.per_core_N))
        used = ceil_div(mt if dim == "M" else nt, per_core)
        gx = min(used, cfg.grid[0])
        gy = ceil_div(used, gx)
        padded = {**shape, dim: gx * gy * per_core * TILE}
        shared = "y" if cfg.kind == "mcast_1d_in1" else "x"
        order, cores = [spread, other], {spread: [gx, gy], other: [1, 1]}
        transfers = {shared: {"mode": "rect", "group": [gx, gy]}}
    else:
        raise ScheduleError(f"TTNN config kind {cfg.kind} has no Loom schedule")
    note = f"TTNN {cfg.kind} on {gx}x{gy} cores, per core {cfg.per_core_M}x{cfg.per_core_N} tiles, " \
           f"out block {cfg.out_block_h}x{cfg.out_block_w}, in0_block_w {cfg.in0_block_w}"
    schedule = _schedule("matmul", arch, shape, order, cores, transfers, blocks, note)
    interm = intermediate(cfg, arch, dtype, packer_l1_acc=packer_l1_acc)
    partials = "float32" if interm.dtype == "float32" else "output" if interm.shared_with_output else None
    if partials is None:
        raise ScheduleError(f"TTNN's partials in {interm.dtype} apart from a {dtype} output have no Loom kernel")
    schedule.notes.append(f"partials in {interm.dtype} (TTNN's interm0"
                          + (", one buffer with the output)" if interm.shared_with_output else ")")
                          + f": TTNN's CBs take {interm.cb_bytes:,} B of {arch.l1.usable_bytes:,} B usable L1")
    if interm.cb_bytes > arch.l1.usable_bytes:
        schedule.notes.append("TTNN itself would not fit L1 here: its CB allocation fails on hardware")
    if padded != shape:
        schedule.shape = padded
        schedule.notes.append("padded " + ", ".join(f"{d} {shape[d]} -> {padded[d]}" for d in shape
                                                     if padded[d] != shape[d])
                              + ": the last cores compute padding; only real tiles move to and from DRAM")
    kernel = GEMM_BY_PARTIALS[partials]
    schedule.kernel = kernel.fn.__name__
    return Baseline(schedule, arch, kernel=kernel, engine_nocs=MATMUL_ENGINE_NOCS)


def ttnn_flash_attention(shape: dict, arch: Arch, q_chunk: int | None = None, k_chunk: int | None = None) -> Baseline:
    """TTNN's SDPA: its default chunk sizes (32), or an SDPAProgramConfig's `q_chunk` and `k_chunk`."""
    b, h, length, d = shape["B"], shape["H"], shape["L"], shape["D"]
    cfg = sdpa_prefill_config(b, h, h, length, length, d, arch=arch, causal=False, q_chunk=q_chunk, k_chunk=k_chunk)
    if cfg.padded_Sq != length or cfg.padded_Sk != length:
        raise ScheduleError(f"TTNN pads L = {length} to whole chunks of {cfg.q_chunk_size} x {cfg.k_chunk_size}; "
                            "this baseline does not reproduce the padding")
    if cfg.cb_bytes > arch.l1.usable_bytes:
        raise ScheduleError(f"TTNN's SDPA CBs for {cfg.q_chunk_size} x {cfg.k_chunk_size} chunks take "
                            f"{cfg.cb_bytes:,} B > {arch.l1.usable_bytes:,} B usable L1: TTNN refuses the config")
    sizes = [cfg.batch_parallel, cfg.nh_parallel, cfg.q_parallel]
    chunks = (f"q_chunk = k_chunk = {cfg.q_chunk_size}" if cfg.q_chunk_size == cfg.k_chunk_size
              else f"q_chunk = {cfg.q_chunk_size}, k_chunk = {cfg.k_chunk_size}")
    note = f"TTNN SDPA: {chunks}, cores batch {sizes[0]} x heads {sizes[1]} x Q {sizes[2]}"
    blocks = {"tile_m": cfg.q_chunk_size, "tile_n": cfg.k_chunk_size}
    chains = kv_chains(cfg, b, h, causal=False)
    order = ["b", "h", "tile_m"]
    working = -(-cfg.q_num_chunks // cfg.q_per_core)  # the Q cores of a head that get chunks (TTNN idles the rest)
    if not chains.chains:
        baseline = _independent_cores("flash_attention", arch, shape, order, sizes, blocks, note)
    elif len(chains.chains) != b * h or any(len(c) != working for c in chains.chains):
        baseline = _independent_cores("flash_attention", arch, shape, order, sizes, blocks, note)
        baseline.schedule.notes.append("TTNN's chains cover only some of each head's cores here; not reproduced: "
                                       "every core reads K and V from DRAM")
    else:
        baseline = _chained_cores(arch, shape, order, [*sizes[:-1], working], blocks, note, chains.multicast)
        if working < cfg.q_parallel:
            baseline.schedule.notes.append(
                f"TTNN's last {cfg.q_parallel - working} of {cfg.q_parallel} Q cores per head get no chunk: left "
                "out" + (" (each later head's cores sit that many places earlier on the grid than TTNN's)"
                         if b * h > 1 else ""))
    baseline.schedule.notes.insert(1, chains.why)
    return baseline


def ttnn_causal_attention(shape: dict, arch: Arch, q_chunk: int | None = None,
                          k_chunk: int | None = None) -> Baseline:
    """TTNN's causal SDPA (grouped K/V heads): its chunk sizes, its batch -> heads -> Q-chunk core split
    with each core's heads contiguous, and BALANCED_Q_PARALLEL (chunk pairs i, n - 1 - i) where TTNN
    turns it on; no K/V chains (TTNN chains non-causal SDPA only); the causal loop skips the chunks past
    the diagonal as TTNN's does (examples/causal_attention.py, `hl.tile(0, tile_m.end)`)."""
    b, h, kv, length, d = shape["B"], shape["H"], shape["KV"], shape["L"], shape["D"]
    cfg = sdpa_prefill_config(b, h, kv, length, length, d, arch=arch, causal=True, q_chunk=q_chunk, k_chunk=k_chunk)
    if cfg.padded_Sq != length:
        raise ScheduleError(f"TTNN pads L = {length} to whole chunks of {cfg.q_chunk_size} x {cfg.k_chunk_size}; "
                            "this baseline does not reproduce the padding")
    if cfg.q_chunk_size % cfg.k_chunk_size and cfg.k_chunk_size % cfg.q_chunk_size:
        raise ScheduleError(f"neither of k_chunk {cfg.k_chunk_size} and q_chunk {cfg.q_chunk_size} divides the "
                            "other: Loom's causal loop needs one of the two blocks to divide the other")
    if cfg.cb_bytes > arch.l1.usable_bytes:
        raise ScheduleError(f"TTNN's SDPA CBs for {cfg.q_chunk_size} x {cfg.k_chunk_size} chunks take "
                            f"{cfg.cb_bytes:,} B > {arch.l1.usable_bytes:,} B usable L1: TTNN refuses the config")
    group = h // kv
    heads = _head_cores(cfg.nh_parallel, cfg.nh_per_core, kv, group)
    order = ["b", *(["h_group", "h_in_group"] if group > 1 else ["h"]), "tile_m"]
    sizes = [cfg.batch_parallel, *heads, cfg.q_parallel]
    note = (f"TTNN causal SDPA: q_chunk = {cfg.q_chunk_size}, k_chunk = {cfg.k_chunk_size}, cores batch "
            f"{cfg.batch_parallel} x heads {cfg.nh_parallel} x Q {cfg.q_parallel}, balanced Q split "
            + ("on" if cfg.balanced_q_parallel else "off"))
    baseline = _independent_cores("causal_attention", arch, shape, order, sizes,
                                  {"tile_m": cfg.q_chunk_size, "tile_n": cfg.k_chunk_size}, note)
    baseline.schedule.knobs["balance_tile_m"] = int(cfg.balanced_q_parallel and cfg.q_parallel > 1)
    return baseline


def _head_cores(cores: int, per_core: int, kv: int, group: int) -> list[int]:
    """TTNN's `cores` head cores (`per_core` contiguous heads each) as cores along (K/V group, head in
    group), or along the heads when there is no grouping."""
    if group == 1:
        return [cores]
    if group % per_core == 0:
        return [kv, group // per_core]
    if per_core % group == 0 and kv % (per_core // group) == 0:
        return [kv // (per_core // group), 1]
    raise ScheduleError(f"TTNN gives each core {per_core} contiguous heads, which straddle groups of {group}")


def _chained_cores(arch: Arch, shape: dict, order: list[str], sizes: list[int], blocks: dict, note: str,
                   multicast: bool) -> Baseline:
    """TTNN's attention cores with K/V chains: core i = (batch, head) x Q cores + Q part, row-major
    on the real grid, compiled for a virtual grid of Q parts (x) by (batch, head) (y), and K and V
    multicast or forwarded along x from each chain's first core."""
    q_cores, rows = sizes[-1], _prod(sizes[:-1])
    virtual = virtual_arch(arch, (q_cores, rows))
    cores = {axis: [1, size] for axis, size in zip(order[:-1], sizes[:-1])}
    cores[order[-1]] = [q_cores, 1]
    mode = {"mode": "row" if multicast else "forward_row", "group": [q_cores, 1]}
    schedule = _schedule("flash_attention", virtual, shape, order, cores, {"k": mode, "v": dict(mode)}, blocks, note)
    schedule.notes.append(f"{q_cores * rows} cores laid out row-major on the {'x'.join(map(str, arch.grid.dims))} "
                          f"grid, as TTNN does (compiled for a {q_cores}x{rows} virtual grid)")
    return Baseline(schedule, virtual, placed_on=arch)


def ttnn_flash_decode(shape: dict, arch: Arch) -> Baseline:
    b, h, length, d = shape["B"], shape["H"], shape["L"], shape["D"]
    cfg = sdpa_decode_config(b, h, h, length, d, arch=arch)
    if cfg.cores_per_head > 1:
        raise ScheduleError("TTNN splits each head over several cores here (a tree reduction between cores), "
                            "which this baseline does not reproduce")
    heads_on_cores = max(1, cfg.num_active_cores // b)
    note = f"TTNN SDPA decode: k_chunk {cfg.k_chunk_size}, {cfg.cores_per_batch} cores per batch, " \
           f"{cfg.heads_per_core} heads per core"
    return _independent_cores("flash_decode", arch, shape, ["b", "h"], [b, min(heads_on_cores, h)],
                              {"tile_n": cfg.k_chunk_size}, note)


def _independent_cores(kernel: str, arch: Arch, shape: dict, order: list[str], sizes: list[int],
                       blocks: dict, note: str) -> Baseline:
    """TTNN's attention kernels give core i (row-major over the grid) one part of the
    axes' product, and no core talks to another. On a grid rectangle when the split factors over
    one; otherwise on a virtual grid (every axis but the last along x, the last along y) whose
    cores run row-major on the real one, as TTNN lays them out."""
    split = _split_over_grid(tuple(arch.grid.dims), sizes)
    if split is not None:
        return Baseline(_schedule(kernel, arch, shape, order, dict(zip(order, split)), {}, blocks, note), arch)
    if len(arch.grid.dims) != 2:
        raise ScheduleError(f"TTNN's core split {sizes} does not factor over the grid {list(arch.grid.dims)}")
    dims = (_prod(sizes[:-1]), sizes[-1])
    virtual = virtual_arch(arch, dims)
    cores = {axis: [size, 1] for axis, size in zip(order[:-1], sizes[:-1])}
    cores[order[-1]] = [1, sizes[-1]]
    schedule = _schedule(kernel, virtual, shape, order, cores, {}, blocks, note)
    schedule.notes.append(f"{_prod(sizes)} cores laid out row-major on the {'x'.join(map(str, arch.grid.dims))} "
                          f"grid, as TTNN does (compiled for a {dims[0]}x{dims[1]} virtual grid)")
    return Baseline(schedule, virtual, placed_on=arch)


TTNN = {"matmul": ttnn_gemm, "flash_attention": ttnn_flash_attention, "flash_decode": ttnn_flash_decode,
        "causal_attention": ttnn_causal_attention}
