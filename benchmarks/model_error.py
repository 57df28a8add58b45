"""The model's error against the simulator over the paper's shape sets, Loom alone (no TTNN baseline):
per shape, Loom's simulated cycles, the model's error and the block sizes, then the geomean |error|.
Faster than `benchmarks/paper.py` when only the model is in question (a change to stage 5).

    .venv/bin/python benchmarks/model_error.py KERNEL ARCH [--limit N]
    e.g. benchmarks/model_error.py matmul wormhole_n150   (18 shapes, about 1.5 min)
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loom.bench.paper import measure, shapes  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernel", help="matmul, flash_attention, flash_decode or causal_attention")
    parser.add_argument("arch")
    parser.add_argument("--limit", type=int, default=None, help="only the first N shapes")
    opts = parser.parse_args()
    errors = []
    for shape in shapes(opts.kernel, opts.arch)[:opts.limit]:
        row = measure(opts.kernel, shape, opts.arch, jobs=1, baselines=())
        errors.append(abs(row.model_error))
        print(f"{row.shape:32s} sim {row.loom_sim_cycles:>14,.0f} cycles  model error {row.model_error:+7.1%}  "
              f"{row.loom_block_sizes}", flush=True)
    geomean = math.exp(sum(math.log(max(e, 1e-4)) for e in errors) / len(errors))
    print(f"{opts.kernel} on {opts.arch}: geomean |model error| {geomean:.1%} over {len(errors)} shapes")


if __name__ == "__main__":
    main()
