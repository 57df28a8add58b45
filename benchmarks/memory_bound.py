"""Memory-bound kernels against their DRAM roof (simulated): Loom's pick for each example at a size
that moves 8 to 34 MB, its simulated cycles, the model's error and the share of the roof it reaches
(the arguments read once and the outputs written once over the chip's spec DRAM bandwidth), over the
kernel time (as a device profiler measures it, each core's setup included) and over the time with the
host's dispatch of one program (`launch_overhead_cycles`, an assumption: about 5 us without trace).

    .venv/bin/python benchmarks/memory_bound.py [--arch wormhole_n150] [--large]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loom.arch import load_arch  # noqa: E402
from loom.bench.paper import measure  # noqa: E402
from loom.kernel_file import load_kernel_file  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SHAPES = {  # the sizes the README's memory-bound paragraph quotes
    "softmax_rows": {"M": 2048, "N": 1024}, "softmax": {"M": 2048, "N": 1024},
    "layer_norm": {"M": 4096, "N": 1024}, "rms_norm": {"M": 4096, "N": 1024},
    "long_sum": {"M": 64, "N": 131072}, "kl_div": {"M": 1024, "N": 1024},
    "swiglu": {"M": 2048, "N": 1024}, "geglu": {"M": 2048, "N": 1024},
    "rope": {"H": 32, "S": 1024, "D": 128}, "rope_pairs": {"B": 4, "H": 8, "S": 1024, "D": 128},
    "concat": {"M": 1024, "N1": 1024, "N2": 2048},
}
LARGE = {  # `--large`: 70 to 270 MB moved (LLM activations: 16384 tokens of 2048), where fill and drain weigh little
    "softmax_rows": {"M": 16384, "N": 2048}, "softmax": {"M": 16384, "N": 2048},
    "layer_norm": {"M": 16384, "N": 2048}, "rms_norm": {"M": 16384, "N": 2048},
    "long_sum": {"M": 256, "N": 131072}, "kl_div": {"M": 8192, "N": 2048},
    "swiglu": {"M": 16384, "N": 2048}, "geglu": {"M": 16384, "N": 2048},
    "rope": {"H": 32, "S": 4096, "D": 128}, "rope_pairs": {"B": 8, "H": 8, "S": 4096, "D": 128},
    "concat": {"M": 8192, "N1": 1024, "N2": 2048},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--arch", default="wormhole_n150")
    parser.add_argument("--large", action="store_true", help="the larger shapes (70 to 270 MB moved)")
    opts = parser.parse_args()
    launch = load_arch(opts.arch).launch_overhead_cycles
    print(f"{'kernel':14s} {'shape':20s} {'MB':>6s} {'kernel cycles':>13s} {'model err':>9s} {'of roof':>8s} "
          f"{'+ dispatch':>10s}  blocks")
    shares, dispatched = [], []
    for name, shape in (LARGE if opts.large else SHAPES).items():
        source = load_kernel_file(EXAMPLES / f"{name}.py")
        row = measure(name, shape, opts.arch, jobs=1, baselines=(), source=source, kind=None)
        kernel = row.loom_sim_cycles - launch
        shares.append(row.roofline_cycles / kernel)
        dispatched.append(row.of_roofline)
        text = ",".join(f"{k}={v}" for k, v in shape.items())
        print(f"{name:14s} {text:20s} {row.dram_bytes / 1e6:6.1f} {kernel:13,.0f} {row.model_error:+9.0%} "
              f"{shares[-1]:8.0%} {dispatched[-1]:10.0%}  {row.loom_block_sizes}", flush=True)
    print(f"geomean of the roof: {_geomean(shares):.0%} of the kernel time, {_geomean(dispatched):.0%} with dispatch")


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


if __name__ == "__main__":
    main()
