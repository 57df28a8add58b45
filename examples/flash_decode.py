"""Flash Decode: one query token per (batch, head) attends over a long KV cache.

The query keeps its sequence axis (shape [B, H, G, D]), the layout decoders use: G = 1 is
multi-head attention; G > 1 is grouped-query attention, H counting KV heads and each KV head
serving G query heads (multi-query attention: H = 1). The KV sequence is the only long axis,
and it is a reduction.
"""

from __future__ import annotations

import math

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def flash_decode(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    batch, heads, group, head_dim = q.size()
    kv_len = k.size(2)
    out = torch.empty_like(q)
    scale = 1.0 / math.sqrt(head_dim)
    for b, h in hl.tile([batch, heads], block_size=[1, 1]):
        m_i = hl.full([group], float("-inf"), dtype=torch.float32)
        l_i = hl.zeros([group], dtype=torch.float32)
        acc = hl.zeros([group, head_dim], dtype=torch.float32)
        q_blk = q[b.begin, h.begin, :, :]
        for tile_n in hl.tile(kv_len):
            k_blk = k[b.begin, h.begin, tile_n, :]
            v_blk = v[b.begin, h.begin, tile_n, :]
            s = torch.matmul(q_blk, k_blk.transpose(-1, -2)).float() * scale
            m_new = torch.maximum(m_i, torch.amax(s, dim=-1))
            p = torch.exp(s - m_new[:, None])
            alpha = torch.exp(m_i - m_new)
            l_i = l_i * alpha + torch.sum(p, dim=-1)
            acc = acc * alpha[:, None] + torch.matmul(p.to(v.dtype), v_blk).float()
            m_i = m_new
        out[b.begin, h.begin, :, :] = (acc / l_i[:, None]).to(out.dtype)
    return out


def inputs(B: int = 2, H: int = 4, L: int = 512, D: int = 64, G: int = 1, dtype: torch.dtype = torch.bfloat16):
    """Example arguments: batch B, KV heads H, KV-cache length L, head dim D, G query heads per KV
    head (one query token each)."""
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(B, H, G, D, generator=gen).to(dtype)
    k = torch.randn(B, H, L, D, generator=gen).to(dtype)
    v = torch.randn(B, H, L, D, generator=gen).to(dtype)
    return (q, k, v)


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    scores = (q.float() @ k.float().transpose(-1, -2)) / math.sqrt(q.size(-1))
    return (torch.softmax(scores, dim=-1) @ v.float()).to(q.dtype)
