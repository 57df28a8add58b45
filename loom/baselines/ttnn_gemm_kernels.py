"""GEMM as TTNN computes it, written as Helion kernels for the TTNN baseline to compile.

TTNN keeps a matmul's partial sums in its interm0 buffer, in the format
`ttnn_matmul.intermediate` names: the output's own format (bf16 for bf16 outputs; then one
buffer with the output) or float32 (fp32 accumulation). Loom's examples/matmul.py accumulates in
float32 and stores a separate bf16 output; running TTNN's block sizes through it would charge
TTNN an fp32 buffer it does not allocate. `GEMM_BY_PARTIALS` picks the kernel by interm0's format.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(static_shapes=True)
def matmul_partials_in_output_format(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Partials in x's (= the output's) format, stored from the same buffer: interm0 shared with the output."""
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=x.dtype)
        for tile_k in hl.tile(k):
            acc = acc + x[tile_m, tile_k] @ y[tile_k, tile_n]
        out[tile_m, tile_n] = acc
    return out


@helion.kernel(static_shapes=True)
def matmul_partials_in_float32(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Partials in float32 (fp32 accumulation), a separate output buffer in x's format."""
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = acc + x[tile_m, tile_k] @ y[tile_k, tile_n]
        out[tile_m, tile_n] = acc.to(x.dtype)
    return out


GEMM_BY_PARTIALS = {"output": matmul_partials_in_output_format, "float32": matmul_partials_in_float32}
