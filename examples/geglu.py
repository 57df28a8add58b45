"""GEGLU activation: gelu(gate) * up with the tanh approximation of GELU, elementwise."""

from __future__ import annotations

import math

import torch

import helion
import helion.language as hl

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@helion.kernel(static_shapes=True)
def geglu(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(gate)
    for tile_m, tile_n in hl.tile(gate.size()):
        g = gate[tile_m, tile_n].to(torch.float32)
        inner = SQRT_2_OVER_PI * (g + 0.044715 * g * g * g)
        gelu = 0.5 * g * (1.0 + torch.tanh(inner))
        out[tile_m, tile_n] = (gelu * up[tile_m, tile_n].to(torch.float32)).to(out.dtype)
    return out


def inputs(M: int = 128, N: int = 256, dtype: torch.dtype = torch.bfloat16):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, N, generator=gen).to(dtype), torch.randn(M, N, generator=gen).to(dtype))


def reference(gate, up):
    return (torch.nn.functional.gelu(gate.float(), approximate="tanh") * up.float()).to(gate.dtype)
