"""Cross-entropy loss per row: logsumexp(logits) - logits[label], streamed over vocabulary blocks with an
online max; the label's logit is picked out of the block that holds it."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def cross_entropy(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    n_rows, vocab = logits.size()
    losses = torch.empty([n_rows], dtype=torch.float32, device=logits.device)
    for tile_m in hl.tile(n_rows):
        label = labels[tile_m]
        row_max = hl.full([tile_m], float("-inf"), dtype=torch.float32)
        row_sum = hl.zeros([tile_m], dtype=torch.float32)
        picked = hl.zeros([tile_m], dtype=torch.float32)
        for tile_v in hl.tile(vocab):
            block = logits[tile_m, tile_v].to(torch.float32)
            new_max = torch.maximum(row_max, torch.amax(block, dim=1))
            row_sum = row_sum * torch.exp(row_max - new_max) + torch.sum(torch.exp(block - new_max[:, None]), dim=1)
            row_max = new_max
            hit = tile_v.index[None, :] == label[:, None]
            picked = picked + torch.sum(torch.where(hit, block, 0.0), dim=1)
        losses[tile_m] = row_max + torch.log(row_sum) - picked
    return losses


def inputs(N: int = 128, V: int = 1024):
    gen = torch.Generator().manual_seed(0)
    return (torch.randn(N, V, generator=gen), torch.randint(0, V, (N,), generator=gen))


def reference(logits, labels):
    return torch.nn.functional.cross_entropy(logits, labels, reduction="none")
