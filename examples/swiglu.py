"""SwiGLU activation: silu(gate) * up, elementwise."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def swiglu(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(gate)
    for tile_m, tile_n in hl.tile(gate.size()):
        g = gate[tile_m, tile_n].to(torch.float32)
        out[tile_m, tile_n] = (g * torch.sigmoid(g) * up[tile_m, tile_n].to(torch.float32)).to(out.dtype)
    return out


def inputs(M: int = 128, N: int = 256, dtype: torch.dtype = torch.bfloat16):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(M, N, generator=gen).to(dtype), torch.randn(M, N, generator=gen).to(dtype))


def reference(gate, up):
    return (torch.nn.functional.silu(gate.float()) * up.float()).to(gate.dtype)
