"""A policy-gradient token loss, the form of Helion's grpo_loss: each token's log-probability of its chosen
token (its logit less the log-sum-exp over the vocabulary, streamed over vocabulary blocks) weighted by its
sequence's advantage. The logits hold one position more than the tokens scored (`logits[:, :-1, :]`), and the
advantage is one value per sequence (`advantages[tile_b]`)."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def token_loss(logits: torch.Tensor, chosen_logits: torch.Tensor, advantages: torch.Tensor) -> torch.Tensor:
    b, positions, v = logits.shape
    length = positions - 1
    scored = logits[:, :-1, :]
    loss = torch.empty([b, length], dtype=torch.float32, device=logits.device)
    for tile_b, tile_l in hl.tile([b, length]):
        row_max = hl.full([tile_b, tile_l], float("-inf"), dtype=torch.float32)
        row_sum = hl.zeros([tile_b, tile_l], dtype=torch.float32)
        for tile_v in hl.tile(v):
            x = scored[tile_b, tile_l, tile_v].to(torch.float32)
            new_max = torch.maximum(row_max, torch.amax(x, dim=-1))
            row_sum = row_sum * torch.exp(row_max - new_max) + torch.sum(torch.exp(x - new_max[:, :, None]), dim=-1)
            row_max = new_max
        log_prob = chosen_logits[tile_b, tile_l].to(torch.float32) - (row_max + torch.log(row_sum))
        loss[tile_b, tile_l] = -log_prob * advantages[tile_b].to(torch.float32)[:, None]
    return loss


def inputs(B: int = 2, L: int = 128, V: int = 512, dtype: torch.dtype = torch.float32):
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(B, L + 1, V, generator=gen)
    chosen = torch.randint(0, V, (B, L), generator=gen)
    return (logits.to(dtype), logits[:, :-1, :].gather(-1, chosen[..., None])[..., 0].to(dtype),
            torch.randn(B, generator=gen).to(dtype))


def reference(logits, chosen_logits, advantages):
    lse = torch.logsumexp(logits[:, :-1, :].float(), dim=-1)
    return -(chosen_logits.float() - lse) * advantages.float()[:, None]
