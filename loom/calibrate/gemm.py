"""GEMM points: TTNN's 2-D multicast matmul (`loom.sim.gemm_workload`) with the point's config.

How a point becomes a program:
- `ttnn_default` (out of box): TTNN's own selection (`loom.baselines.ttnn_matmul`
  `matmul_default_config` decides the kind; `gemm_workload.ttnn_default_config` the blocks of the
  2-D multicast; the 1-D multicast of A runs as `loom.calibrate.gemm1d`), at
  the architecture's default fidelity for the dtype — the op ran without a compute config; the
  row's fidelity is only the label the report used for its utilisation.
- `hand_tuned` with a published program config (per_core_M/N, in0_block_w, out_block, out_subblock,
  in0/out sharded): that config.
- `hand_tuned` without one: the report test's rule (per_core_M = Mt / grid_y, per_core_N = Nt / grid_x,
  in0_block_w = Kt / grid_x / div, out_block = per_core / num_out_blocks, out_subblock by the
  test's `get_subblock_sizes`), sweeping div and num_out_blocks over the values whose circular
  buffers fit L1 and keeping the best simulated time, as the report kept its best (the rule is
  `loom.baselines.ttnn_hand_tuned`, shared with the bench's TTNN hand-tuned baseline).
- L1-sharded in0 / out (the `gemm_flops_tuned_l1_sharded` template): A's blocks are already in the
  sender's L1 (no DRAM read before the multicast) and C stays in L1 (no DRAM write).

What is compared: device time where the point has a device-side utilisation (device time = ideal
cycles / utilisation, ideal cycles = Mt*Kt*Nt x cycles per tile at the row's fidelity / cores, the
report's own definition), against the simulated compute roles' duration averaged over the cores
(the utilisation divides by the average TRISC1 = math-thread kernel duration, which does not
include the writer draining the last output block); otherwise host time (`inference_time_avg`), predicted as simulated
kernel time + a dispatch model: the architecture's `launch_overhead_cycles` per op without trace,
nothing with trace (the report: "with use_trace=True host overhead is mostly removed").
"""

from __future__ import annotations

import dataclasses
import math
import re

from loom.arch import Arch, load_arch
from loom.backend.validate import check_program
from loom.baselines.ttnn_hand_tuned import HandTunedBlocks, report_rule_blocks
from loom.calibrate.common import BUILDERS, Plan, Row, SimSpec, Skip, arch_for, number
from loom.calibrate.points import Point, unknown_fields

KNOWN_FIELDS: dict[str, set[str] | None] = {
    "id": None, "chip": None, "kernel": None, "caveat": None, "measured": None, "measurement_method": None,
    "source": None, "fidelity": None, "use_trace": None,
    "shape": {"M", "K", "N", "batch", "aspect_ratio_MKN"},
    "dtype": {"in0", "in1", "out"},
    "config": {"type", "template", "grid", "in0_block_w", "in0_block_w_div", "in0_sharded", "note",
               "num_out_blocks_h", "num_out_blocks_w", "out_block_h", "out_block_w", "out_sharded",
               "out_subblock_h", "out_subblock_w", "per_core_M", "per_core_N", "program_config"},
}
"""Fields of a GEMM point this module reads or knows to be descriptive; any other is named in a skip."""

DTYPES = {"bf16": "bfloat16", "bfloat16": "bfloat16", "bfp8_b": "bfp8_b", "bfp8": "bfp8_b",
          "bfp4_b": "bfp4_b", "bfp4": "bfp4_b", "fp32": "float32", "float32": "float32"}
"""Dtype names of the ground-truth files -> Loom's (architecture YAML `dtypes.tile_bytes` keys)."""

REPORT_CYCLES_PER_TILE = {"LoFi": 16, "HiFi2": 32, "HiFi3": 48, "HiFi4": 64}
"""The GEMM_FLOPS report's definition of ideal cycles per 32x32x32 tile product at each fidelity
(tt-metal tests/ttnn/unit_tests/benchmarks/test_matmul_2d_host_perf, `FIDELITY_CYCLES`). A property
of the metric, not of the hardware: the device time is recovered with the report's own numbers."""

def grid_of(text) -> tuple[int, int]:
    """'(13, 10)' or '13x10' -> (13, 10); `Skip` otherwise."""
    nums = re.findall(r"\d+", str(text))
    if len(nums) != 2:
        raise Skip("unparsable config.grid", str(text))
    return int(nums[0]), int(nums[1])


def plan_gemm(point: Point) -> Plan:
    """The simulations a GEMM point needs and how they become its row; `Skip` when inexpressible."""
    raw = point.raw
    extra = unknown_fields(raw, KNOWN_FIELDS)
    if extra:
        raise Skip(f"unknown field {extra[0]}")
    shape, config, dtype = raw.get("shape") or {}, raw.get("config") or {}, raw.get("dtype") or {}
    try:
        M, K, N = (int(shape[d]) for d in ("M", "K", "N"))
    except (KeyError, TypeError, ValueError):
        raise Skip("shape without integer M, K and N") from None
    if int(shape.get("batch", 1) or 1) != 1:
        raise Skip("batched GEMM (batch > 1)")
    in0, in1 = str(dtype.get("in0", "")), str(dtype.get("in1", ""))
    if in0 not in DTYPES or in1 not in DTYPES:
        raise Skip(f"unknown dtype '{in0 if in0 not in DTYPES else in1}'")
    if DTYPES[in0] != DTYPES[in1]:
        raise Skip("mixed input dtypes (in0 != in1)")
    out = str(dtype.get("out", "as in0"))
    dt = DTYPES[in0]
    out_dt = dt if out.startswith("as in0") else DTYPES.get(out)
    if out_dt is None:
        raise Skip(f"unknown dtype '{out}'")
    grid = grid_of(config.get("grid", ""))
    arch = arch_for(point.chip, grid)
    for dtn in (dt, out_dt):
        if dtn not in arch.dtypes.tile_bytes:
            raise Skip(f"dtype {dtn} has no tile size in {arch.name}")
    tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
    if M % tr or K % tc or N % tc:
        raise Skip("shape not a multiple of the tile")
    kind = str(config.get("type", ""))
    fidelity = raw.get("fidelity")
    metric, measured, how = _measurement(point, arch, M, K, N, grid, fidelity)
    if kind == "ttnn_default":
        specs = [_ttnn_default(arch, M, K, N, dt)]
    elif kind in ("hand_tuned", "hand_tuned_sweep_best"):
        if fidelity not in arch.matrix_engine.cycles_per_tile:
            raise Skip(f"fidelity {fidelity} not priced by {arch.name}")
        if "per_core_M" in config:
            specs = [_published(arch, M, K, N, dt, out_dt, fidelity, grid, config)]
        else:
            template = point.templates.get(str(config.get("template")))
            sharded = _template_sharding(str(config.get("template", "")), template)
            specs = _sweep(arch, M, K, N, dt, out_dt, fidelity, grid, *sharded)
            if not specs:
                raise Skip("no divisor of the report test's rule fits L1")
    else:
        raise Skip(f"unknown config.type '{kind}'")
    host = metric == "host_time_us"
    trace = bool(raw.get("use_trace"))
    gflop = 2.0 * M * N * K / 1e9
    label = {"ttnn_default": "out_of_box"}.get(kind, kind)

    def finish(results: list[dict | None]) -> Row:
        done = [(r, s) for r, s in zip(results, specs) if r is not None]
        if not done:
            errors = sorted({str(r.get("error")) for r in results if r} or {"simulation failed"})
            return Row(point.id, point.chip, point.kernel, metric, measured, None, f"simulation failed: {errors[0]}",
                       arch.name, label, dt, gflop)
        key = "kernel_cycles" if host else "trisc1_cycles"
        best, spec = min(done, key=lambda rs: rs[0][key])
        cycles = best[key] + (arch.launch_overhead_cycles if host and not trace else 0)
        predicted = cycles / arch.clock_ghz / 1e3
        note = how + f"; {spec.args[0].describe()}" + (f" (best of {len(done)} configs)" if len(done) > 1 else "")
        if spec.kind == "gemm1d":
            note += f"; TTNN 1-D multicast of A on {spec.args[1]}x{spec.args[2]} cores"
        elif spec.args[1] or spec.args[2]:
            note += f"; sharded {'in0 ' if spec.args[1] else ''}{'out' if spec.args[2] else ''}".rstrip()
        return Row(point.id, point.chip, point.kernel, metric, measured, predicted, None, arch.name, label, dt,
                   gflop, note)

    return Plan(point, specs, finish)


def _measurement(point: Point, arch: Arch, M: int, K: int, N: int, grid: tuple[int, int],
                 fidelity) -> tuple[str, float, str]:
    """(metric, measured value, how it was derived): device time where usable, else host time."""
    for name in ("device_based_utilization", "device_util_vs_user_grid"):
        m = point.metric(name)
        if m is None:
            continue
        util = number(m.value)
        if m.unit != "%" or util is None or util <= 0 or "mis-scaled" in m.note or "not usable" in m.note:
            continue
        if fidelity not in REPORT_CYCLES_PER_TILE:
            raise Skip(f"fidelity label '{fidelity}' unknown: no ideal cycles for the device time")
        ideal = (M // 32) * (K // 32) * (N // 32) * REPORT_CYCLES_PER_TILE[fidelity] / (grid[0] * grid[1])
        return ("device_time_us", ideal / (util / 100) / arch.clock_ghz / 1e3,
                f"device time = ideal cycles ({fidelity} label) / {name} {util:g} %")
    m = point.metric("inference_time_avg")
    host = number(m.value) if m is not None else None
    if host is None or m.unit != "ns":
        raise Skip("no device-time or host-time metric in ns")
    trace = bool(point.raw.get("use_trace"))
    how = ("host time; predicted = simulated kernel time" +
           (" (traced: dispatch assumed hidden)" if trace else
            f" + launch_overhead_cycles {arch.launch_overhead_cycles} (dispatch model, an assumption)"))
    return "host_time_us", host / 1e3, how


def _template_sharding(name: str, template: dict | None) -> tuple[bool, bool]:
    """(in0 sharded, out sharded) of a hand-tuned template, from the file's `templates.config`."""
    if template is None:
        raise Skip(f"unknown config.template '{name}'")
    if "in0_sharded" not in template or "out_sharded" not in template:
        raise Skip(f"config.template '{name}' does not say in0_sharded / out_sharded")
    return bool(template["in0_sharded"]), bool(template["out_sharded"])


def _ttnn_default(arch: Arch, M: int, K: int, N: int, dt: str) -> SimSpec:
    from loom.baselines.ttnn_matmul import matmul_default_config
    from loom.sim.gemm_workload import ttnn_default_config

    chosen = matmul_default_config(M, K, N, arch=arch, dtype=dt)
    if chosen.kind == "mcast_1d_in0":
        return _ttnn_1d_in0(arch, M, K, N, dt, chosen)
    if chosen.kind != "mcast_2d":
        raise Skip(f"TTNN picks {chosen.kind}: no loom.sim program for it")
    cfg = ttnn_default_config(arch, M, K, N, dt)
    tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
    if cfg.grid[1] * cfg.per_core_M != M // tr or cfg.grid[0] * cfg.per_core_N != N // tc:
        raise Skip("TTNN pads the last cores (uneven split): gemm_workload builds only exact splits")
    return SimSpec("gemm", arch.name, (cfg, False, False))


def _ttnn_1d_in0(arch: Arch, M: int, K: int, N: int, dt: str, c) -> SimSpec:
    """TTNN's 1-D multicast of A (`loom.calibrate.gemm1d`) on the first cores, row-major."""
    from loom.sim.gemm_workload import GemmConfig

    tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
    nt = N // tc
    used = -(-nt // c.per_core_N)
    gx = min(used, arch.grid.dims[0])
    if used * c.per_core_N != nt or used % gx or c.per_core_M != M // tr:
        raise Skip("TTNN's 1-D multicast pads the last core or uses a non-rectangular set of cores")
    cfg = GemmConfig(M, K, N, (used, 1), c.per_core_M, c.per_core_N, c.in0_block_w, c.out_block_h, c.out_block_w,
                     (c.out_subblock_h, c.out_subblock_w), dt, dt, "bfloat16", c.fidelity)
    return SimSpec("gemm1d", arch.name, (cfg, gx, used // gx))


def gemm1d_figures(arch_name: str, cfg, gx: int, gy: int) -> dict[str, float]:
    """Simulate TTNN's 1-D multicast-A program (the builder behind `SimSpec('gemm1d', ...)`)."""
    from loom.calibrate.gemm1d import gemm_1d_in0_program

    arch = load_arch(arch_name)
    return program_figures(gemm_1d_in0_program(arch, cfg, (gx, gy)), arch)


def _published(arch: Arch, M: int, K: int, N: int, dt: str, out_dt: str, fidelity: str,
               grid: tuple[int, int], c: dict) -> SimSpec:
    from loom.sim.gemm_workload import GemmConfig

    try:
        pcm, pcn, kw = int(c["per_core_M"]), int(c["per_core_N"]), int(c["in0_block_w"])
        obh, obw = int(c["out_block_h"]), int(c["out_block_w"])
        sub = (int(c["out_subblock_h"]), int(c["out_subblock_w"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise Skip("incomplete program config", str(exc)) from None
    cfg = GemmConfig(M, K, N, grid, pcm, pcn, kw, obh, obw, sub, dt, out_dt, "bfloat16", fidelity)
    _check_blocks(arch, cfg)
    return SimSpec("gemm", arch.name, (cfg, bool(c.get("in0_sharded")), bool(c.get("out_sharded"))))


def _check_blocks(arch: Arch, cfg) -> None:
    tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
    mt, kt, nt = cfg.M // tr, cfg.K // tc, cfg.N // tc
    gx, gy = cfg.grid
    if mt != gy * cfg.per_core_M or nt != gx * cfg.per_core_N:
        raise Skip("program config does not split M and N evenly over the grid")
    if kt % cfg.in0_block_w or cfg.per_core_M % cfg.out_block_h or cfg.per_core_N % cfg.out_block_w:
        raise Skip("program config blocks do not divide their extents")
    if cfg.out_block_h % cfg.out_subblock[0] or cfg.out_block_w % cfg.out_subblock[1]:
        raise Skip("out_subblock does not divide out_block")


def l1_estimate(arch: Arch, cfg, in0_sharded: bool, out_sharded: bool) -> int:
    """Bytes of the 2-D multicast matmul's circular buffers on one core: double-buffered in0 and
    in1 blocks, the output block (the whole per-core output when sharded), the partials buffer
    (packer L1 accumulation, bf16 or the output's tile), and A's shard when in0 is sharded."""
    tb = arch.dtypes.tile_bytes
    a, o = tb[cfg.dtype], tb[cfg.out_dtype]
    kt = cfg.K // arch.tiling.tile_cols
    size = 2 * cfg.out_block_h * cfg.in0_block_w * a + 2 * cfg.in0_block_w * cfg.out_block_w * a
    out_tiles = cfg.per_core_M * cfg.per_core_N if out_sharded else cfg.out_block_h * cfg.out_block_w
    size += out_tiles * o + cfg.out_block_h * cfg.out_block_w * max(tb["bfloat16"], o)
    if in0_sharded:
        size += cfg.per_core_M * (kt // cfg.grid[0]) * a
    return size


def _sweep(arch: Arch, M: int, K: int, N: int, dt: str, out_dt: str, fidelity: str, grid: tuple[int, int],
           in0_sharded: bool, out_sharded: bool) -> list[SimSpec]:
    """The report test's rule over the divisor sweep; configs whose CBs do not fit L1 are dropped."""
    from loom.sim.gemm_workload import GemmConfig

    tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
    mt, kt, nt = M // tr, K // tc, N // tc
    gx, gy = grid
    if mt % gy or nt % gx or kt % gx:
        raise Skip("the report test's rule needs Mt, Nt and Kt divisible by the grid")

    def spec(b: HandTunedBlocks) -> SimSpec:
        cfg = GemmConfig(M, K, N, grid, mt // gy, nt // gx, b.in0_block_w, b.out_block_h, b.out_block_w,
                         b.out_subblock, dt, out_dt, "bfloat16", fidelity)
        return SimSpec("gemm", arch.name, (cfg, in0_sharded, out_sharded))

    def fits(b: HandTunedBlocks) -> bool:
        return l1_estimate(arch, spec(b).args[0], in0_sharded, out_sharded) < arch.l1.usable_bytes

    return [spec(b) for b in report_rule_blocks(mt // gy, nt // gx, kt // gx, fits, out_sharded)]


def _strip(body: tuple, drop) -> tuple:
    from loom.backend.program import Loop

    out = []
    for ins in body:
        if isinstance(ins, Loop):
            out.append(dataclasses.replace(ins, body=_strip(ins.body, drop)))
        elif not drop(ins):
            out.append(ins)
    return tuple(out)


K_BLOCKS_SIMULATED = 6
"""K-block extrapolation: a config of more than 4 x this many K blocks is simulated with about this many
and twice as many (`k_block_plan`) and extended linearly in the K blocks."""


def gemm_figures(arch_name: str, cfg, in0_sharded: bool, out_sharded: bool) -> dict[str, float]:
    """Simulate one config (the builder behind `SimSpec('gemm', ...)`). A long K loop is extended from two
    shorter ones (`k_block_plan`): every K block after the first repeats the same reads, multicasts and
    block matmul, so the figures grow linearly in the K blocks once the per-block pipeline is full."""
    arch = load_arch(arch_name)
    plan = k_block_plan(arch, cfg)
    if plan is None:
        return _config_figures(arch, cfg, in0_sharded, out_sharded)
    (n1, k1), (n2, k2), total = plan
    f1, f2 = (_config_figures(arch, dataclasses.replace(cfg, K=k), in0_sharded, out_sharded) for k in (k1, k2))
    slope = (total - n2) / (n2 - n1)
    return {"kernel_cycles": f2["kernel_cycles"] + slope * (f2["kernel_cycles"] - f1["kernel_cycles"]),
            "trisc1_cycles": f2["trisc1_cycles"] + slope * (f2["trisc1_cycles"] - f1["trisc1_cycles"]),
            "extrapolated": 1.0}


def k_block_plan(arch: Arch, cfg) -> tuple[tuple[int, int], tuple[int, int], int] | None:
    """((n1, K1), (n2, K2), n): two shorter K loops of n1 < n2 blocks of `in0_block_w` tiles (and their K)
    that stand for the config's n blocks, or None for a loop of at most 4 x `K_BLOCKS_SIMULATED` blocks.
    Both keep K's tiles congruent modulo the DRAM banks, so that A's rows start on the banks they start on
    in the full loop (tiles are interleaved over the banks row-major: A's tile (r, k) lies in bank
    (r Kt + k) mod banks)."""
    tile = arch.tiling.tile_cols
    kt = cfg.K // tile
    blocks = kt // cfg.in0_block_w
    if blocks <= 4 * K_BLOCKS_SIMULATED:
        return None
    banks = arch.dram.banks
    step = banks // math.gcd(cfg.in0_block_w, banks)  # blocks that shift Kt by a multiple of the banks
    n1 = K_BLOCKS_SIMULATED + (blocks - K_BLOCKS_SIMULATED) % step
    n2 = n1 + step * -(-K_BLOCKS_SIMULATED // step)
    if 2 * n2 > blocks:
        return None
    return (n1, n1 * cfg.in0_block_w * tile), (n2, n2 * cfg.in0_block_w * tile), blocks


def _config_figures(arch: Arch, cfg, in0_sharded: bool, out_sharded: bool) -> dict[str, float]:
    from loom.backend.program import ROLES, DramRead, DramWrite
    from loom.sim.gemm_workload import gemm_program

    program = gemm_program(arch, cfg)
    if in0_sharded or out_sharded:
        def drop(ins) -> bool:
            return ((in0_sharded and isinstance(ins, DramRead) and ins.tensor == "A")
                    or (out_sharded and isinstance(ins, DramWrite) and ins.tensor == "C"))
        groups = tuple(dataclasses.replace(g, **{k: _strip(g.role(k), drop) for k in ROLES})
                       for g in program.groups)
        program = dataclasses.replace(program, groups=groups)
    return program_figures(program, arch)


def program_figures(program, arch: Arch) -> dict[str, float]:
    """Simulated figures of a timing-only run: `kernel_cycles` (launch to the last role's end, as
    `loom.sim.simulate` reports) and `trisc1_cycles`, the compute roles' end minus the launch,
    averaged over the cores that compute — what the report's device-based utilisation divides by
    (the average TRISC1 kernel duration from the device profiler, which ends when the math thread
    ends, before the writer's last stores land). Extended over the outer loop nest by steady-state
    extrapolation (loom/sim/steady.py) where the nest allows, as `simulate` does."""
    from loom.sim.engine import run_program
    from loom.sim.steady import extrapolation_plan

    check_program(program, arch)
    steady = extrapolation_plan(program)

    def measure(p) -> tuple[float, float]:
        raw, sim, _ = run_program(p, arch, False, None, False)
        ends = [r.end - raw.launch for r in sim.roles if r.kind == "compute" and r.busy > 0]
        return raw.cycles - raw.launch, (sum(ends) / len(ends) if ends else raw.cycles - raw.launch)

    if steady is not None:
        (c1, t1), (c2, t2) = measure(steady["short"]), measure(steady["long"])
        k1, k2, total = steady["k1"], steady["k2"], steady["total"]
        if c2 > c1:
            f = (total - k2) / (k2 - k1)
            return {"kernel_cycles": c2 + f * (c2 - c1), "trisc1_cycles": t2 + f * (t2 - t1), "extrapolated": 1.0}
    cycles, trisc1 = measure(program)
    return {"kernel_cycles": cycles, "trisc1_cycles": trisc1, "extrapolated": 0.0}


BUILDERS["gemm"] = gemm_figures
BUILDERS["gemm1d"] = gemm1d_figures
