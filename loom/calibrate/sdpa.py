"""SDPA (flash attention) points: read the published description, name what Loom cannot express.

The SDPA file describes each point in prose (`shape.description_as_published`, e.g. "causal,
32/8 heads, D128, BFP8 Q/K/V, S4096, Q256/K256 on 8x8, HiFi4 + FP32") or with a few structured
fields. Loom's attention kernel (`examples/flash_attention.py`, TTNN's SDPA baseline in
`loom.baselines`) is non-causal multi-head attention with bf16 Q/K/V and no mask; every feature
outside that is a named skip. Rows inside it are not yet simulated (they need the Helion
frontend and a schedule with the stated chunk sizes): they are skipped with that reason, so the
count of expressible-but-unwired rows is visible.
"""

from __future__ import annotations

import re

from loom.calibrate.common import Plan, Skip
from loom.calibrate.points import Point, unknown_fields

KNOWN_FIELDS: dict[str, set[str] | None] = {
    "id": None, "chip": None, "kernel": None, "caveat": None, "measured": None, "measurement_method": None,
    "source": None, "config": {"type", "variant", "note"}, "dtype": {"qkv"},
    "shape": {"description_as_published", "heads", "head_dim", "seq", "op", "q_heads", "kv_heads"},
}

FEATURES = (
    (r"^same\b", "description refers to another row ('same, ...')"),
    (r"ring_distributed|ring ", "multi-device ring-distributed SDPA"),
    (r"chunked prefill|paged", "chunked prefill over a paged KV cache"),
    (r"\bjoint\b", "joint attention (two concatenated sequences)"),
    (r"window", "sliding-window mask"),
    (r"causal", "causal mask (Loom's attention kernel is non-causal)"),
    (r"padding mask", "padding mask"),
    (r"bfp8|bfp4", "block-float Q/K/V (Loom's attention kernel takes bf16)"),
)
"""(pattern in the description, skip reason), checked in order; the first match names the skip."""


def describe(point: Point) -> str:
    shape = point.raw.get("shape") or {}
    text = str(shape.get("description_as_published", ""))
    if not text:
        text = ", ".join(f"{k} {v}" for k, v in shape.items())
        qkv = (point.raw.get("dtype") or {}).get("qkv")
        if qkv:
            text += f", {qkv} Q/K/V"
    return text


def plan_sdpa(point: Point) -> Plan:
    extra = unknown_fields(point.raw, KNOWN_FIELDS)
    if extra:
        raise Skip(f"unknown field {extra[0]}")
    if point.chip not in ("blackhole_p150", "blackhole", "wormhole_n150", "wormhole_b0"):
        raise Skip(f"unknown chip '{point.chip}'")
    text = describe(point)
    low = text.lower()
    for pattern, reason in FEATURES:
        if re.search(pattern, low):
            raise Skip(reason, text)
    heads = re.search(r"(\d+)\s*/\s*(\d+)\s*heads", low)
    if heads and heads.group(1) != heads.group(2):
        raise Skip("grouped-query attention (q heads != kv heads)", text)
    shape = point.raw.get("shape") or {}
    if shape.get("q_heads") is not None and shape.get("q_heads") != shape.get("kv_heads"):
        raise Skip("grouped-query attention (q heads != kv heads)", text)
    if point.metric("op_time") is None and point.metric("device_time_traced") is None:
        raise Skip("no op_time or device time")
    raise Skip("expressible (non-causal MHA, bf16) but not yet simulated: needs the Helion frontend "
               "and a TTNN SDPA schedule with the stated chunk sizes", text)
