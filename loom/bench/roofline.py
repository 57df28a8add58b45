"""A kernel's roofline on a chip: the fewest cycles its DRAM traffic and its matrix products allow.

DRAM: every argument read once and every output written once, at their real sizes and element types,
over the chip's peak DRAM bandwidth (`dram.bandwidth_bytes_per_cycle`, the spec figure, not the measured
saturation). Compute: a GEMM's 2·M·N·K flops at the matrix engine's peak for its inputs' default
fidelity (every core back to back). Other kernels' elementwise and reduction work is left out of the
roof: the memory-bound kernels it serves (softmax, norms, elementwise) are bounded by DRAM.
"""

from __future__ import annotations

import math

import torch

from loom.arch import Arch
from loom.cost import default_fidelity
from loom.ir.types import DTYPE_BYTES


def dram_bytes(args: tuple, outputs: dict[str, tuple[tuple[int, ...], str]]) -> int:
    """Bytes a kernel must move: its tensor arguments, read once, and its outputs (name -> (real shape,
    element type)), written once."""
    read = sum(a.numel() * a.element_size() for a in args if isinstance(a, torch.Tensor))
    written = sum(math.prod(shape) * DTYPE_BYTES[dtype] for shape, dtype in outputs.values())
    return read + written


def roofline_cycles(arch: Arch, moved_bytes: int, flops: float | None = None) -> float:
    """max(DRAM bytes / peak bandwidth, flops / peak matmul rate), in core cycles."""
    dram = moved_bytes / arch.dram.bandwidth_bytes_per_cycle
    if not flops:
        return dram
    peak_per_cycle = arch.peak_tflops(default_fidelity(arch, "bfloat16", "bfloat16")) * 1e12 / (arch.clock_ghz * 1e9)
    return max(dram, flops / peak_per_cycle)
