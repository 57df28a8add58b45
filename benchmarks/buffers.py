"""Stage 2-3 figures per kernel: virtual buffers before/after merging, physical slots after
colouring, and the L1 footprint at one concrete block-size assignment with and without sharing.

    .venv/bin/python benchmarks/buffers.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import loom  # noqa: E402
from loom.ir.dialect import MemAllocOp, VbBindOp, VbCreateOp  # noqa: E402
from loom.kernel_file import load_kernel_file  # noqa: E402
from loom.passes.l1_footprint import l1_footprint  # noqa: E402

CASES = [
    ("matmul", {"M": 2048, "N": 2048, "K": 2048}, {"tile_m": 256, "tile_n": 256, "tile_k": 128}),
    ("flash_attention", {"B": 1, "H": 32, "L": 2048, "D": 128}, {"tile_m": 256, "tile_n": 256}),
    ("flash_decode", {"B": 16, "H": 32, "L": 4096, "D": 128}, {"tile_n": 512}),
]


def count(module, kind) -> int:
    return sum(isinstance(op, kind) for op in module.walk())


def main() -> None:
    tile = (32, 32)
    print(f"{'kernel':16} {'vb before':>9} {'vb after':>9} {'slots':>6}   footprint at assignment (KiB): "
          "no merge/no sharing, merged/no sharing, merged+shared")
    for name, shape, sizes in CASES:
        source = load_kernel_file(Path("examples") / f"{name}.py")
        result = loom.lower(source.kernel, source.example_args(shape), stage="concrete")
        dataflow, concrete = result.stages["dataflow"], result.stages["concrete"]
        unmerged = l1_footprint(dataflow, tile).bytes(sizes)
        shared = l1_footprint(concrete, tile)
        merged_unshared = sum(
            t.bytes(sizes) // 1 * len(t.buffers) for t in shared.terms
        )
        print(f"{name:16} {count(dataflow, VbCreateOp):9d} {count(concrete, VbBindOp):9d} "
              f"{count(concrete, MemAllocOp):6d}   {unmerged / 1024:8.1f} {merged_unshared / 1024:8.1f} "
              f"{shared.bytes(sizes) / 1024:8.1f}   at {sizes}")


if __name__ == "__main__":
    main()
