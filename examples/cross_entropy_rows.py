"""Cross-entropy loss in the form of Helion's own example: whole rows of logits for the log-sum-exp, and each
row's target logit gathered from a flat view (`hl.load(logits_flat, [rows.index * v + labels])`), which Loom
reads as the row's element at the label's column (`loom.frontend.positions.flat_gathers`). The host averages."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True, ignore_warnings=[helion.exc.TensorOperationInWrapper])
def cross_entropy_rows(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    n, v = logits.shape
    losses = torch.empty([n], dtype=torch.float32, device=logits.device)
    logits_flat = logits.view(-1)
    for rows in hl.tile(n):
        target = hl.load(logits_flat, [rows.index * v + labels[rows]]).to(torch.float32)
        x = logits[rows, :].to(torch.float32)
        row_max = torch.amax(x, dim=-1)
        lse = row_max + torch.log(torch.sum(torch.exp(x - row_max[:, None]), dim=-1))
        losses[rows] = lse - target
    return losses.mean()


def inputs(N: int = 128, V: int = 512, dtype: torch.dtype = torch.float32):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(N, V, generator=gen).to(dtype), torch.randint(0, V, (N,), generator=gen))


def reference(logits, labels):
    return torch.nn.functional.cross_entropy(logits.float(), labels)
