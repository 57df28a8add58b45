"""TTNN's default choices written as Loom Schedules, so they run through the same
materialization, per-core split and simulator as Loom's own choices (like for like).

- GEMM: `matmul_default_config` (2-D multicast: A along rows from the left column, B down the
  columns; 1-D: one operand multicast to every core). TTNN's L1-fitted output block
  (out_block_h x out_block_w tiles) and K block (in0_block_w tiles) are the block sizes.
- Flash Attention: q_chunk = k_chunk = 32 and TTNN's batch -> heads -> Q-chunk core split, K and
  V read by every core (TTNN's chain forwarding of K/V between cores of one head is not
  modelled: Loom has no forwarding transfer yet, so this baseline reads more DRAM than TTNN).
- Flash Decode: TTNN's k_chunk rule and its batch/head split over cores (one core per head when
  there are enough heads; TTNN's cross-core reduction is not needed then).
"""

from __future__ import annotations

from itertools import product

from loom.arch import Arch
from loom.baselines.ttnn_matmul import matmul_default_config
from loom.baselines.ttnn_sdpa import sdpa_decode_config, sdpa_prefill_config
from loom.schedule import Schedule, ScheduleError

TILE = 32


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


def ttnn_gemm(shape: dict, arch: Arch, dtype: str = "bfloat16") -> Schedule:
    m, n, k = shape["M"], shape["N"], shape["K"]
    cfg = matmul_default_config(m, k, n, arch=arch, dtype=dtype)
    gx, gy = cfg.grid
    blocks = {"tile_m": cfg.out_block_h * TILE, "tile_n": cfg.out_block_w * TILE, "tile_k": cfg.in0_block_w * TILE}
    note = f"TTNN {cfg.kind} grid {gx}x{gy}, per core {cfg.per_core_M}x{cfg.per_core_N} tiles, " \
           f"out block {cfg.out_block_h}x{cfg.out_block_w}, in0_block_w {cfg.in0_block_w}"
    if cfg.kind == "mcast_2d":  # M down the grid's rows (y), N along them (x)
        return _schedule("matmul", arch, shape, ["tile_m", "tile_n"], {"tile_m": [1, gy], "tile_n": [gx, 1]},
                         {"x": {"mode": "row", "group": [gx, 1]}, "y": {"mode": "column", "group": [1, gy]}},
                         blocks, note)
    if cfg.kind in ("mcast_1d_in1", "mcast_1d_in0"):
        spread, other = ("tile_m", "tile_n") if cfg.kind == "mcast_1d_in1" else ("tile_n", "tile_m")
        shared = "y" if cfg.kind == "mcast_1d_in1" else "x"
        return _schedule("matmul", arch, shape, [spread, other], {spread: [gx, gy], other: [1, 1]},
                         {shared: {"mode": "rect", "group": [gx, gy]}}, blocks, note)
    raise ScheduleError(f"TTNN config kind {cfg.kind} has no Loom schedule")


def ttnn_flash_attention(shape: dict, arch: Arch) -> Schedule:
    b, h, length, d = shape["B"], shape["H"], shape["L"], shape["D"]
    cfg = sdpa_prefill_config(b, h, h, length, length, d, arch=arch, causal=False)
    sizes = [cfg.batch_parallel, cfg.nh_parallel, cfg.q_parallel]
    split = _split_over_grid(tuple(arch.grid.dims), sizes)
    if split is None:
        raise ScheduleError(f"TTNN's core split {sizes} does not factor over the grid {list(arch.grid.dims)}")
    cores = dict(zip(["b", "h", "tile_m"], split))
    note = f"TTNN SDPA: q_chunk = k_chunk = {cfg.q_chunk_size}, cores batch {sizes[0]} x heads {sizes[1]} x Q {sizes[2]}"
    return _schedule("flash_attention", arch, shape, ["b", "h", "tile_m"], cores, {},
                     {"tile_m": cfg.q_chunk_size, "tile_n": cfg.k_chunk_size}, note)


def ttnn_flash_decode(shape: dict, arch: Arch) -> Schedule:
    b, h, length, d = shape["B"], shape["H"], shape["L"], shape["D"]
    cfg = sdpa_decode_config(b, h, h, length, d, arch=arch)
    if cfg.cores_per_head > 1:
        raise ScheduleError("TTNN splits each head over several cores here; Loom has no cross-core combine yet")
    heads_on_cores = max(1, cfg.num_active_cores // b)
    split = _split_over_grid(tuple(arch.grid.dims), [b, min(heads_on_cores, h)])
    if split is None:
        raise ScheduleError(f"TTNN's core split does not factor over the grid {list(arch.grid.dims)}")
    note = f"TTNN SDPA decode: k_chunk {cfg.k_chunk_size}, {cfg.cores_per_batch} cores per batch, " \
           f"{cfg.heads_per_core} heads per core"
    return _schedule("flash_decode", arch, shape, ["b", "h"], dict(zip(["b", "h"], split)), {},
                     {"tile_n": cfg.k_chunk_size}, note)


TTNN = {"matmul": ttnn_gemm, "flash_attention": ttnn_flash_attention, "flash_decode": ttnn_flash_decode}
