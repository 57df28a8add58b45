"""Regret of the solver's top-1 on loom.sim (the paper's Figs. 10-11), over the paper's GEMM set.

    .venv/bin/python benchmarks/oracle.py [--arch wormhole_n150] [--max-k 2048] [--out benchmarks/results]
For each shape: the solver's top-5 candidates simulated (top-1 vs the best of them) and the chosen
candidate at every block-size assignment one domain step away (a 3x3x3 cube). Simulated figures.
Draws both regrets as box plots in <out>/matmul_<arch>_regret.png.
Target (issue 9): top-1 within 5 % of the best of top-5 on at least 90 % of the GEMM shapes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loom.bench import plots  # noqa: E402
from loom.bench.oracle import neighbourhood_regret, top_k_regret  # noqa: E402
from loom.bench.rows import GEMM_K, GEMM_MN  # noqa: E402
from loom.kernel_file import load_kernel_file  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--arch", default="wormhole_n150")
    parser.add_argument("--max-k", type=int, default=2048, help="skip K above this (long simulations)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results",
                        help="where the regret plot goes")
    opts = parser.parse_args()
    source = load_kernel_file(Path(__file__).resolve().parents[1] / "examples" / "matmul.py")
    within, total = 0, 0
    regrets: dict[str, list[float]] = {"top-1 vs best of top-5": [], "top-1 vs 3x3x3 neighbourhood": []}
    for m, n in GEMM_MN:
        for k in [k for k in GEMM_K if k <= opts.max_k]:
            shape = {"M": m, "N": n, "K": k}
            args = source.example_args(shape, meta=True)
            top = top_k_regret(source.kernel, args, opts.arch, shape)
            near = neighbourhood_regret(source.kernel, args, opts.arch, shape)
            total += 1
            within += top.regret <= 0.05
            regrets["top-1 vs best of top-5"].append(top.regret)
            regrets["top-1 vs 3x3x3 neighbourhood"].append(near.regret)
            print(f"M={m:5} N={n:5} K={k:5}  top-5 regret {top.regret:+6.1%} (best {top.best_label})  "
                  f"3x3x3 regret {near.regret:+6.1%} over {near.simulated} (best {near.best_label})", flush=True)
    print(f"top-1 within 5 % of the best of top-5 on {within}/{total} shapes ({within / total:.0%}; target 90 %)")
    print(f"wrote {plots.regret(regrets, opts.out, opts.arch)}")


if __name__ == "__main__":
    main()
