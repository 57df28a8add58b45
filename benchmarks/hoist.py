"""Temporal hoisting and forwarding, one schedule each way (issue #4): compile a GEMM at fixed block
sizes, take a candidate that may keep a panel in L1 (or forwards an operand), and simulate it with
the panel kept and not (or against the same mapping with unicast): modelled and simulated cycles
and DRAM bytes per tensor. Simulated on loom.sim.

    .venv/bin/python benchmarks/hoist.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loom.kernel_file import load_kernel_file  # noqa: E402
from loom.model import expr as E  # noqa: E402
from loom.pipeline import compile as compile_kernel  # noqa: E402
from loom.run import run  # noqa: E402

GEMM = load_kernel_file(Path(__file__).resolve().parents[1] / "examples" / "matmul.py")


def show(compilation, ranked, values, args, label):
    ranked.values = values
    compilation.ranked = [ranked]
    sim = run(compilation, args).sim
    reads = ", ".join(f"{t} {b / 1e6:.2f} MB" for t, b in sim.dram_read_bytes_by_tensor.items() if b)
    print(f"  {label:34s} model {E.evaluate(ranked.model.problem.objective, values):>9,} cyc   "
          f"sim {sim.cycles:>9,.0f} cyc   DRAM read {reads}")


def main() -> None:
    shape, sizes = {"M": 2048, "N": 2048, "K": 256}, {"tile_m": 64, "tile_n": 64, "tile_k": 64}
    args = GEMM.example_args(shape, meta=True)
    compilation = compile_kernel(GEMM.kernel, args, "wormhole_n150", shape=shape, block_sizes=sizes, top_k=0)
    ranked = compilation.ranked
    kept = next(r for r in ranked if r.model.hoists)
    knob = kept.model.hoists[0].knob
    print(f"GEMM {shape} at {sizes} on wormhole_n150, candidate {kept.name}:")
    for on in (0, 1):
        show(compilation, kept, {**kept.values, knob: on}, args, f"{knob}={on}")
    chained = next(r for r in ranked if any(t.mode.startswith("forward") for t in r.model.candidate.transfers))
    plain = next(r for r in ranked if r.name == chained.name.replace("forward_row", "unicast")
                 .replace("forward_column", "unicast"))
    print("forwarding against the same mapping with unicast (no panel kept):")
    for r in (chained, plain):
        show(compilation, r, {**r.values, **{h.knob: 0 for h in r.model.hoists}}, args, r.name)


if __name__ == "__main__":
    main()
