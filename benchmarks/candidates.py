"""Stage 4 figures: candidate counts (full space, retained, pruned %) and enumeration time.

    .venv/bin/python benchmarks/candidates.py
GEMM over the paper's shape set on Wormhole and Blackhole, then Flash Attention and Flash Decode.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import loom  # noqa: E402
from loom.arch import load_arch  # noqa: E402
from loom.kernel_file import load_kernel_file  # noqa: E402
from loom.mapping.candidates import enumerate_candidates  # noqa: E402

MN = [(16384, 16384), (16384, 2048), (16384, 256), (2048, 2048), (2048, 256), (256, 256)]
KS = [256, 2048, 16384]


def measure(name: str, shape: dict, arch_name: str) -> tuple[int, int, float, float]:
    arch = load_arch(arch_name)
    source = load_kernel_file(Path("examples") / f"{name}.py")
    # example tensors are materialised by inputs(); use meta tensors for the big shapes
    args = source.example_args(shape) if _small(shape) else _meta_args(source, shape)
    module = loom.lower(source.kernel, args, arch=arch).module
    times = []
    for _ in range(3):
        start = time.perf_counter()
        result = enumerate_candidates(module, arch)
        times.append(time.perf_counter() - start)
    return result.full_space, len(result.candidates), result.pruned_fraction, statistics.median(times)


def _small(shape: dict) -> bool:
    total = 1
    for v in shape.values():
        total *= v
    return total <= 2**28


def _meta_args(source, shape):
    import torch

    with torch.device("meta"):
        return source.example_args(shape)


def main() -> None:
    print(f"{'kernel':14} {'arch':15} {'shape':28} {'full':>8} {'kept':>6} {'pruned':>7} {'time':>9}")
    rows = []
    for arch in ("wormhole_n150", "blackhole_p150"):
        for (m, n) in MN:
            for k in KS:
                rows.append(("matmul", {"M": m, "N": n, "K": k}, arch))
    rows += [("flash_attention", {"B": b, "H": 32, "L": 16384 // b, "D": 128}, "wormhole_n150") for b in (1, 4, 16)]
    rows += [("flash_decode", {"B": 16, "H": h, "L": 4096, "D": 128}, "wormhole_n150") for h in (32, 128)]
    gemm_times = []
    for name, shape, arch in rows:
        full, kept, pruned, seconds = measure(name, shape, arch)
        if name == "matmul":
            gemm_times.append(seconds)
        text = ",".join(f"{k}={v}" for k, v in shape.items())
        print(f"{name:14} {arch:15} {text:28} {full:8d} {kept:6d} {pruned:7.1%} {seconds * 1000:7.1f}ms")
    print(f"GEMM enumeration: median {statistics.median(gemm_times) * 1000:.1f} ms, "
          f"max {max(gemm_times) * 1000:.1f} ms (target < 200 ms per shape)")


if __name__ == "__main__":
    main()
