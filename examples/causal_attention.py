"""Causal attention with grouped-query heads (GQA, the prefill of Llama-style models): H query heads share
H / KV key/value heads (`h.begin // group`); each query block reads keys only up to its own end
(`hl.tile(0, tile_m.end)`), and a key past its query is masked from `tile.index` positions."""

from __future__ import annotations

import math

import torch

import helion
import helion.language as hl


@helion.kernel(static_shapes=True)
def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    batch, heads, seq_q, head_dim = q.size()
    kv_heads = k.size(1)
    group = heads // kv_heads
    out = torch.empty_like(q)
    scale = 1.0 / math.sqrt(head_dim)
    for b, h, tile_m in hl.tile([batch, heads, seq_q], block_size=[1, 1, None]):
        m_i = hl.full([tile_m], float("-inf"), dtype=torch.float32)
        l_i = hl.zeros([tile_m], dtype=torch.float32)
        acc = hl.zeros([tile_m, head_dim], dtype=torch.float32)
        q_blk = q[b.begin, h.begin, tile_m, :]
        for tile_n in hl.tile(0, tile_m.end):
            k_blk = k[b.begin, h.begin // group, tile_n, :]
            v_blk = v[b.begin, h.begin // group, tile_n, :]
            s = torch.matmul(q_blk, k_blk.transpose(-1, -2)).float() * scale
            s = torch.where(tile_m.index[:, None] >= tile_n.index[None, :], s, float("-inf"))
            m_new = torch.maximum(m_i, torch.amax(s, dim=-1))
            p = torch.exp(s - m_new[:, None])
            alpha = torch.exp(m_i - m_new)
            l_i = l_i * alpha + torch.sum(p, dim=-1)
            acc = acc * alpha[:, None] + torch.matmul(p.to(v.dtype), v_blk).float()
            m_i = m_new
        out[b.begin, h.begin, tile_m, :] = (acc / l_i[:, None]).to(out.dtype)
    return out


def inputs(B: int = 1, H: int = 4, KV: int = 2, L: int = 128, D: int = 64, dtype: torch.dtype = torch.bfloat16):
    """Example arguments: batch B, H query heads over KV key/value heads, sequence length L, head dim D."""
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(B, H, L, D, generator=gen).to(dtype)
    k, v = (torch.randn(B, KV, L, D, generator=gen).to(dtype) for _ in range(2))
    return (q, k, v)


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    group = q.size(1) // k.size(1)
    k, v = (t.float().repeat_interleave(group, dim=1) for t in (k, v))
    return torch.nn.functional.scaled_dot_product_attention(q.float(), k, v, is_causal=True).to(q.dtype)
