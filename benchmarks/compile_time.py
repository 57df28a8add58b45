"""Compile time by stage, bound-ordered against exhaustive solving, per shape of the paper's sets
(GEMM, Flash Attention, Flash Decode) on both chips, with the candidates the bound prunes and any
shape where the two modes choose differently (there must be none).

    .venv/bin/python benchmarks/compile_time.py [--top-k 1] [--arch wormhole_n150|blackhole_p150|both]
        [--kernels matmul,flash_attention,flash_decode] [--limit N] [--runs 3] [--jobs N]

Per shape: `--runs` bound-ordered compiles (median per stage) and one exhaustive compile (every
candidate solved, one job: the behaviour before issue 18). Stages 2-6 leave out stage 1 (Helion's
trace, cached by Helion after the first compile of a kernel). Targets (issue 18): stages 2-6 median
<= 0.5 s for top-1, <= 1.0 s for top-5, worst shape <= 1.5 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loom.bench.paper import shapes as paper_shapes  # noqa: E402
from loom.kernel_file import load_kernel_file  # noqa: E402
from loom.pipeline import compile as compile_kernel  # noqa: E402

STAGE_1 = "frontend (stage 1)"


def after_frontend(result) -> float:
    return sum(v for s, v in result.seconds.items() if s != STAGE_1)


def choice(result) -> tuple:
    return [(r.name, r.cycles, sorted(r.values.items())) for r in result.ranked]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--top-k", type=int, default=1)
    parser.add_argument("--arch", default="both")
    parser.add_argument("--kernels", default="matmul,flash_attention,flash_decode")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None)
    opts = parser.parse_args()
    archs = ["wormhole_n150", "blackhole_p150"] if opts.arch == "both" else [opts.arch]
    root = Path(__file__).resolve().parents[1]
    totals, before, mismatches, by_kernel = [], [], [], {}
    for arch in archs:
        for kernel in opts.kernels.split(","):
            source = load_kernel_file(root / "examples" / f"{kernel}.py")
            for shape in paper_shapes(kernel, arch)[: opts.limit]:
                args = source.example_args(shape, meta=True)
                runs = [compile_kernel(source.kernel, args, arch, shape=shape, top_k=opts.top_k, jobs=opts.jobs)
                        for _ in range(opts.runs)]
                every = compile_kernel(source.kernel, args, arch, shape=shape, top_k=opts.top_k, jobs=1,
                                       exhaustive=True)
                stages = {s: statistics.median(r.seconds[s] for r in runs) for s in runs[0].seconds}
                total = statistics.median(after_frontend(r) for r in runs)
                totals.append(total)
                before.append(after_frontend(every))
                by_kernel.setdefault((arch, kernel), []).append(total)
                same = all(choice(r) == choice(every) and r.schedule.to_json() == every.schedule.to_json()
                           for r in runs)
                if not same:
                    mismatches.append(f"{arch} {kernel} {shape}")
                counts = runs[0].counts
                text = ", ".join(f"{s.split(' (')[0]} {v * 1000:.0f}" for s, v in stages.items() if s != STAGE_1)
                size = ",".join(f"{k}={v}" for k, v in shape.items())
                print(f"{arch:15} {kernel:15} {size:26} stages 2-6 {total:5.2f} s (exhaustive "
                      f"{before[-1]:5.2f} s) [{text} ms]  {len(runs[0].candidates.candidates)} candidates: "
                      f"{counts.solved} solved, {counts.pruned_by_bound} pruned by bound, "
                      f"{counts.pruned_by_cutoff} by cutoff, {counts.infeasible} infeasible; "
                      f"{counts.exact_bounds} exact bounds  {'same' if same else 'MISMATCH'} top-{opts.top_k}: "
                      f"{runs[0].schedule.candidate}", flush=True)
    for (arch, kernel), values in by_kernel.items():
        print(f"{arch:15} {kernel:15} median stages 2-6 {statistics.median(values):.2f} s, worst {max(values):.2f} s")
    target = 0.5 if opts.top_k == 1 else 1.0
    print(f"median stages 2-6 {statistics.median(totals):.2f} s (exhaustive {statistics.median(before):.2f} s), "
          f"worst {max(totals):.2f} s, over {len(totals)} shapes, top-{opts.top_k} (target <= {target:.1f} s median, "
          f"<= 1.5 s worst); mismatches with exhaustive solving: {len(mismatches)}"
          + "".join(f"\n  MISMATCH {m}" for m in mismatches))


if __name__ == "__main__":
    main()
