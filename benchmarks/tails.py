"""What padding costs (issue 19, tails): compile and simulate a GEMM at shapes with a tail (1000: not
whole tiles) or whole tiles that no good block divides (992 = 31 x 32, 4064 = 127 x 32), and at the
nearest fully divisible shape (1024, 4096); print both simulated times and the padded shape's time
against the divisible one's scaled by flops (target: within 5 %). Simulated on loom.sim.

    .venv/bin/python benchmarks/tails.py [--arch wormhole_n150] [--sizes 1000:1024,992:1024,...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loom.kernel_file import load_kernel_file  # noqa: E402
from loom.pipeline import compile as compile_kernel  # noqa: E402
from loom.run import run  # noqa: E402

GEMM = load_kernel_file(Path(__file__).resolve().parents[1] / "examples" / "matmul.py")
PAIRS = "1000:1024,992:1024,2000:2048,2016:2048,4000:4096,4064:4096"


def simulate(n: int, arch: str) -> tuple[float, str, float]:
    """(simulated cycles, chosen block sizes, wall seconds) of an n x n x n GEMM."""
    start = time.perf_counter()
    shape = {"M": n, "N": n, "K": n}
    args = GEMM.example_args(shape, meta=True)
    compilation = compile_kernel(GEMM.kernel, args, arch, shape=shape)
    sim = run(compilation, args).sim
    blocks = ",".join(f"{k[5:]}={v}" for k, v in sorted(compilation.schedule.block_sizes.items()))
    return sim.cycles, blocks, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="wormhole_n150")
    parser.add_argument("--sizes", default=PAIRS, help="padded:divisible pairs, comma-separated")
    options = parser.parse_args()
    print(f"GEMM n x n x n, bf16, on {options.arch} (loom.sim); ratio = padded time / (divisible time x flops ratio)")
    print(f"{'n':>6} {'blocks':>18} {'cycles':>12} | {'n':>6} {'blocks':>18} {'cycles':>12} | {'ratio':>6}  wall")
    for pair in options.sizes.split(","):
        padded, divisible = (int(v) for v in pair.split(":"))
        c1, b1, w1 = simulate(padded, options.arch)
        c2, b2, w2 = simulate(divisible, options.arch)
        ratio = c1 / (c2 * (padded / divisible) ** 3)
        print(f"{padded:>6} {b1:>18} {c1:>12,.0f} | {divisible:>6} {b2:>18} {c2:>12,.0f} | {ratio:>6.3f}  "
              f"{w1:.0f}+{w2:.0f} s", flush=True)


if __name__ == "__main__":
    main()
