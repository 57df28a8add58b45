"""RMSNorm's backward pass: the input gradient row by row, and the weight gradient as one partial sum per
block of rows (`partial[rows.id, :]`), which the host code adds up. The partials tensor is sized by the row
block, which the solver chooses (`hl.register_block_size`): Loom lays it out for the smallest block and the
host code reads the slices of the chosen one (`loom.frontend.partials`)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True, ignore_warnings=[helion.exc.TensorOperationInWrapper])
def rms_norm_backward(grad_out: torch.Tensor, x: torch.Tensor, weight: torch.Tensor,
                      inv_rms: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    m, n = x.size()
    row_block = hl.register_block_size(m)
    grad_x = torch.empty_like(x)
    partial = torch.empty([(m + row_block - 1) // row_block, n], dtype=torch.float32, device=x.device)
    for rows in hl.tile(m, block_size=row_block):
        grad_w = torch.zeros([n], dtype=torch.float32, device=x.device)
        for tile_m in hl.tile(rows.begin, rows.end):
            xf = x[tile_m, :].to(torch.float32)
            dy = grad_out[tile_m, :].to(torch.float32)
            r = inv_rms[tile_m].to(torch.float32)[:, None]
            grad_w += (dy * xf * r).sum(0)
            wdy = weight[None, :].to(torch.float32) * dy
            dot = (wdy * xf).sum(-1)[:, None] / n
            grad_x[tile_m, :] = (r * wdy - xf * r * r * r * dot).to(x.dtype)
        partial[rows.id, :] = grad_w
    return grad_x, partial.sum(0).to(weight.dtype)


def inputs(M: int = 128, N: int = 256, dtype: torch.dtype = torch.float32):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(M, N, generator=gen)
    inv_rms = torch.rsqrt(x.pow(2).mean(-1) + 1e-6)
    return (torch.randn(M, N, generator=gen).to(dtype), x.to(dtype), torch.randn(N, generator=gen).to(dtype),
            inv_rms)


def reference(grad_out, x, weight, inv_rms):
    xf = x.detach().float().clone().requires_grad_(True)  # a copy: the arguments stay as they are
    wf = weight.detach().float().clone().requires_grad_(True)
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * wf
    out.backward(grad_out.float())
    return xf.grad.to(x.dtype), wf.grad.to(weight.dtype)
