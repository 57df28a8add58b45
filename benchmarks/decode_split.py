"""Flash Decode with reduction-axis parallelism (issue #7): per shape, the split width the solver
chose (1 = none), modelled and simulated time, and the simulated KV-cache bandwidth against the
chip's DRAM bandwidth. Shapes: the paper's (B = 16, H in {32, 64, 128}, L = 4096, D in {64, 128}),
grouped-query variants (8 KV heads, G query heads each), and single-sequence decodes where the
KV axis is the only parallelism. All figures are simulated on loom.sim, not measured.

    .venv/bin/python benchmarks/decode_split.py [--arch wormhole_n150] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loom.arch import load_arch  # noqa: E402
from loom.kernel_file import load_kernel_file  # noqa: E402
from loom.pipeline import compile as compile_kernel  # noqa: E402
from loom.run import run  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "flash_decode.py"
PAPER = [{"B": 16, "H": h, "L": 4096, "D": d, "G": 1} for h in (32, 64, 128) for d in (64, 128)]
GROUPED = ([{"B": 16, "H": 8, "L": 4096, "D": 128, "G": g} for g in (4, 8)]
           + [{"B": 16, "H": 1, "L": 4096, "D": 128, "G": 32}])
SINGLE = ([{"B": 1, "H": h, "L": 4096, "D": 128, "G": 1} for h in (1, 8)]
          + [{"B": 1, "H": 8, "L": 16384, "D": 128, "G": 4}])


def measure(shape: dict, arch_name: str) -> dict:
    arch = load_arch(arch_name)
    source = load_kernel_file(EXAMPLE)
    args = source.example_args(shape, meta=True)
    start = time.perf_counter()
    result = compile_kernel(source.kernel, args, arch, shape=shape)
    seconds = time.perf_counter() - start
    sim = run(result, args).sim
    best = result.ranked[0]
    split = best.model.candidate.split
    kv = sim.dram_read_bytes_by_tensor.get("k", 0) + sim.dram_read_bytes_by_tensor.get("v", 0)
    return {"shape": shape, "candidate": best.name, "width": split.width if split else 1,
            "combine": f"{split.loop.combine} by {split.scheme}" if split else "-",
            "model_us": best.cycles / (arch.clock_ghz * 1e3),
            "sim_us": sim.us, "kv_gbps": kv / (sim.us * 1e3),
            "dram_gbps": arch.dram.bandwidth_bytes_per_cycle * arch.clock_ghz, "compile_s": seconds,
            "note": result.schedule.split_note}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--arch", default="wormhole_n150")
    parser.add_argument("--quick", action="store_true", help="one shape per set")
    opts = parser.parse_args()
    sets = [("paper", PAPER), ("grouped", GROUPED), ("single sequence", SINGLE)]
    print(f"Flash Decode on {opts.arch} (simulated on loom.sim)")
    print(f"{'set':16s} {'B':>3} {'H':>4} {'G':>3} {'L':>6} {'D':>4} {'split':>5}  {'model us':>9} {'sim us':>9} "
          f"{'err':>6} {'KV GB/s':>8} {'of DRAM':>7} {'compile s':>9}  candidate")
    for name, shapes in sets:
        for shape in shapes[:1] if opts.quick else shapes:
            r = measure(shape, opts.arch)
            err = (r["model_us"] - r["sim_us"]) / r["sim_us"]
            print(f"{name:16s} {shape['B']:>3} {shape['H']:>4} {shape['G']:>3} {shape['L']:>6} {shape['D']:>4} "
                  f"{r['width']:>5}  {r['model_us']:>9.1f} {r['sim_us']:>9.1f} {err:>+6.1%} {r['kv_gbps']:>8.0f} "
                  f"{r['kv_gbps'] / r['dram_gbps']:>7.0%} {r['compile_s']:>9.2f}  {r['candidate']}", flush=True)
            if r["width"] == 1 and r["note"]:
                print(f"{'':16s} ({r['note']})", flush=True)


if __name__ == "__main__":
    main()
