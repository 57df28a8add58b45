"""Causal attention against the same kernel without causality (issue 19's target: at most 55 % of the
non-causal time, per-core busy times within 10 % of each other). The non-causal kernel is
examples/causal_attention.py with its key loop over every key and the mask removed; both are compiled
by the solver and simulated on loom.sim at the same shape.

    .venv/bin/python benchmarks/causal_ratio.py [--arch wormhole_n150] [--shape B=1,H=32,KV=8,L=4096,D=128]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loom.kernel_file import load_kernel_file, parse_shape  # noqa: E402
from loom.pipeline import compile as compile_kernel  # noqa: E402
from loom.run import run  # noqa: E402

CAUSAL = Path(__file__).resolve().parents[1] / "examples" / "causal_attention.py"
CAUSAL_LOOP, EVERY_KEY = "hl.tile(0, tile_m.end)", "hl.tile(k.size(2))"
MASK = "            s = torch.where(tile_m.index[:, None] >= tile_n.index[None, :], s, float(\"-inf\"))\n"


def non_causal_text() -> str:
    """The causal example's text with its key loop over every key and no mask."""
    text = CAUSAL.read_text()
    if CAUSAL_LOOP not in text or MASK not in text:
        raise SystemExit(f"{CAUSAL} no longer has the key loop `{CAUSAL_LOOP}` and the mask line this script removes")
    return text.replace(CAUSAL_LOOP, EVERY_KEY).replace(MASK, "")


def simulate(path: Path, shape: dict, arch: str) -> tuple[float, str, float]:
    """(simulated cycles, block sizes, least over most busy core) of the kernel file at `shape`."""
    source = load_kernel_file(path)
    args = source.example_args(shape, meta=True)
    compilation = compile_kernel(source.kernel, args, arch, shape=shape)
    sim = run(compilation, args).sim
    blocks = ",".join(f"{k}={v}" for k, v in sorted(compilation.schedule.block_sizes.items()))
    return sim.kernel_cycles, blocks, sim.compute_balance


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="wormhole_n150")
    parser.add_argument("--shape", default="B=1,H=32,KV=8,L=4096,D=128")
    opts = parser.parse_args()
    shape = parse_shape(opts.shape)
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "non_causal_attention.py"
        plain.write_text(non_causal_text())
        rows = [("causal", *simulate(CAUSAL, shape, opts.arch)), ("non-causal", *simulate(plain, shape, opts.arch))]
    for name, cycles, blocks, balance in rows:
        print(f"{name:<11} {cycles:>14,.0f} cycles  blocks {blocks:<24} per-core busy, least / most {balance:.0%}")
    print(f"causal / non-causal: {rows[0][1] / rows[1][1]:.1%} on {opts.arch} (target at most 55 %; simulated on "
          "loom.sim)")


if __name__ == "__main__":
    main()
