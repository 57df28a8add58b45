"""Calibrate loom.sim against published hardware measurements and print the comparison.

(a) Per-core data-movement rates (tt-metal data_movement ideal_performance.md) on Wormhole and
    Blackhole, target +-10 %. The measured rates enter the simulator as stream and port ceilings
    (loom/sim/noc.py), so this is a consistency check of everything added on top (latency,
    issue cost, routing, packet headers), not an independent validation.
(b) GEMM TFLOPS of TTNN's default configurations (tt-metal GEMM_FLOPS.md), built with
    loom.sim.gemm_workload, target +-20 % and the same ordering. The published TFLOPS are
    host-measured; the same report's device-based utilisation (benchmarks/
    gemm_device_utilisation.yaml) gives the device-side figure a simulator should match, so both
    errors are printed. Rows marked * are the required points.

Usage: .venv/bin/python benchmarks/calibrate.py [--points PATH] [--all]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loom.arch import load_arch  # noqa: E402
from loom.sim import simulate  # noqa: E402
from loom.sim.gemm_workload import gemm_program, ttnn_default_config  # noqa: E402
from loom.sim.workloads import microbenchmarks  # noqa: E402

DEFAULT_POINTS = ROOT.parent / "shared" / "reference" / "published_points.yaml"
DEVICE_UTIL = ROOT / "benchmarks" / "gemm_device_utilisation.yaml"
ARCH_OF = {"wormhole": "wormhole_n150", "blackhole": "blackhole_p150"}
DTYPE_OF = {"bf16": "bfloat16", "bfp8": "bfp8_b", "bfp4": "bfp4_b"}
FIDELITY_OF = {"lofi": "LoFi", "hifi2": "HiFi2", "hifi3": "HiFi3", "hifi4": "HiFi4"}
REQUIRED = {("wormhole_n150", "bf16", 1024, 1024), ("wormhole_n150", "bf16", 4096, 4096),
            ("wormhole_n150", "bfp8", 4096, 4096), ("blackhole_p150", "bf16", 5120, 6656),
            ("blackhole_p150", "bfp8", 5120, 6656)}
"""(chip, dtype, M, N) of the points the calibration targets (issue #6)."""


def _err(sim: float, ref: float) -> str:
    return f"{100 * (sim / ref - 1):+6.1f}%"


def data_movement(points: dict) -> list[float]:
    """Part (a); returns the absolute relative errors."""
    table = points["data_movement_per_core_bytes_per_cycle"]
    print("(a) per-core data movement, bytes/cycle (measured rates are model ceilings: consistency check)")
    print(f"    {'arch':15s} {'primitive':30s} {'published':>9s} {'simulated':>9s} {'error':>7s}")
    errors = []
    for chip, arch_name in ARCH_OF.items():
        arch = load_arch(arch_name)
        for key, bench in microbenchmarks(arch).items():
            r = simulate(bench.program, arch)
            rate = bench.nbytes / r.program_cycles
            ref = float(table[chip][key])
            errors.append(abs(rate / ref - 1))
            print(f"    {arch_name:15s} {key:30s} {ref:9.1f} {rate:9.1f} {_err(rate, ref)}")
    print(f"    worst |error| {100 * max(errors):.1f}% (target 10%)")
    for arch_name in ARCH_OF.values():
        d = load_arch(arch_name).dram
        bank = d.bandwidth_bytes_per_cycle / d.banks * d.efficiency
        print(f"    structural cross-check, {arch_name}: one bank serves {d.bandwidth_bytes_per_cycle:.1f} / "
              f"{d.banks} x {d.efficiency} = {bank:.1f} B/cycle (measured one-core DRAM read: "
              f"{load_arch(arch_name).rates.dram_read:g})")
    print()
    return errors


def gemms(points: dict, run_all: bool) -> None:
    """Part (b)."""
    device = {(p["chip"], p["dtype"], p["M"], p["K"], p["N"]): p["device_util"]
              for p in yaml.safe_load(DEVICE_UTIL.read_text())["points"]}
    print("(b) GEMM, TTNN default 2-D multicast configs (TFLOPS; host = published_points.yaml, "
          "device = same report's device-based utilisation x peak)")
    print(f"    {'':1s} {'arch':15s} {'grid':6s} {'dtype':5s} {'fid':5s} {'M x K x N':17s} {'host':>6s} "
          f"{'device':>6s} {'sim':>6s} {'err/host':>8s} {'err/dev':>8s}  "
          f"config (out block, k block) / sim notes")
    rows = []
    for p in points["gemm_tflops"]["points"]:
        if p["config"] != "ttnn_default":
            continue
        key = (p["chip"], p["dtype"], p["M"], p["N"])
        arch = load_arch(p["chip"])
        grid = tuple(p["grid"])
        if not run_all and key not in REQUIRED:
            continue
        if tuple(arch.grid.dims) != grid and not run_all:
            continue
        dtype, fid = DTYPE_OF[p["dtype"]], FIDELITY_OF[p["fidelity"]]
        cfg = ttnn_default_config(arch, p["M"], p["K"], p["N"], dtype, fidelity=fid, grid=grid)
        start = time.perf_counter()
        r = simulate(gemm_program(arch, cfg), arch)
        wall = time.perf_counter() - start
        sim = r.tflops()
        util = device.get((p["chip"], p["dtype"], p["M"], p["K"], p["N"]))
        cores = grid[0] * grid[1]
        dev = util / 100 * arch.peak_tflops(fid) * cores / arch.num_cores if util else None
        rows.append((p["tflops"], sim, key in REQUIRED))
        mark = "*" if key in REQUIRED else " "
        shape = f"{p['M']}x{p['K']}x{p['N']}"
        print(f"    {mark} {p['chip']:15s} {grid[0]}x{grid[1]:<4d} {p['dtype']:5s} {fid:5s} {shape:17s} "
              f"{p['tflops']:6.1f} {dev if dev else float('nan'):6.1f} {sim:6.1f} "
              f"{_err(sim, p['tflops']):>8s} {_err(sim, dev) if dev else '   n/a':>8s}  "
              f"{cfg.out_block_h}x{cfg.out_block_w}, k{cfg.in0_block_w};"
              f" compute {r.utilisation['compute']:.0%}, busiest link {r.busiest_link_utilisation:.0%}"
              f"{', extrapolated' if r.extrapolated else ''} ({wall:.1f}s)")
    required = [(pub, sim) for pub, sim, req in rows if req]
    order_pub = sorted(range(len(required)), key=lambda i: required[i][0])
    order_sim = sorted(range(len(required)), key=lambda i: required[i][1])
    worst = max(abs(sim / pub - 1) for pub, sim in required) if required else 0.0
    print(f"    required points: worst |error vs host| {100 * worst:.1f}% (target 20%); ordering "
          f"{'matches' if order_pub == order_sim else 'DIFFERS'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=Path, default=DEFAULT_POINTS, help="published_points.yaml")
    ap.add_argument("--all", action="store_true", help="also run every other ttnn_default GEMM point")
    args = ap.parse_args()
    if not args.points.is_file():
        sys.exit(f"expected the published points at {args.points}, found no file (pass --points)")
    points = yaml.safe_load(args.points.read_text())
    data_movement(points)
    gemms(points, args.all)


if __name__ == "__main__":
    main()
