"""SDPA (flash attention) points: read the published description, name what Loom cannot express.

The SDPA file describes each point in prose (`shape.description_as_published`, e.g. "causal,
32/8 heads, D128, BFP8 Q/K/V, S4096, Q256/K256 on 8x8, HiFi4 + FP32") or with a few structured
fields. Loom expresses two of TTNN's SDPAs with bf16 Q/K/V: non-causal multi-head attention
(`examples/flash_attention.py`, TTNN's baseline `loom.baselines.schedules.ttnn_flash_attention`) and
causal attention with grouped K/V heads (`examples/causal_attention.py`, `ttnn_causal_attention`, where
the key chunk divides the query chunk), and joint attention as non-causal attention over its two parts
concatenated where neither is padded (`_joint_as_one_sequence`); every feature outside them is a named
skip, and so is every variant other than the legacy kernel (the newer "routed" precision recipes are different kernels;
TTNN's SDPA baselines model the legacy one). A row inside them is compiled with TTNN's core split and
the row's Q/K chunk sizes as block sizes, simulated on the 13x10 p150, and compared on op time (ms).
A math fidelity the description states ("HiFi4 + FP32") prices the matrix engine; fp32 dest accumulation
is not modelled, and a row that states no fidelity runs the architecture's bf16 default.
"""

from __future__ import annotations

import re
from pathlib import Path

from loom import cost
from loom.calibrate.common import BUILDERS, Plan, Row, SimSpec, Skip, arch_for, number
from loom.calibrate.points import Point, unknown_fields

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

KNOWN_FIELDS: dict[str, set[str] | None] = {
    "id": None, "chip": None, "kernel": None, "caveat": None, "measured": None, "measurement_method": None,
    "source": None, "config": {"type", "variant", "note"}, "dtype": {"qkv"},
    "shape": {"description_as_published", "heads", "head_dim", "seq", "op", "q_heads", "kv_heads"},
}

FEATURES = (
    (r"^same\b", "description refers to another row ('same, ...')"),
    (r"ring_distributed|ring ", "multi-device ring-distributed SDPA"),
    (r"chunked prefill|paged", "chunked prefill over a paged KV cache"),
    (r"window", "sliding-window mask"),
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


def _joint_as_one_sequence(low: str, text: str) -> str:
    """A joint attention row (`N4096 + L512`: TTNN's joint SDPA, non-causal over the image and text tokens
    concatenated) as one sequence of N + L tokens (`s4608`), where each part is whole Q and K chunks: TTNN pads
    the two parts to whole chunks apart, which a single sequence reproduces only when neither part is padded."""
    joint = re.search(r"\bn(\d+)\s*\+\s*(?:l(\d+)|empty joint)", low)
    if not re.search(r"\bjoint\b", low):
        return low
    chunks = re.search(r"\bq(\d+)\s*/\s*k(\d+)", low)
    if not (joint and chunks):
        raise Skip("joint attention without its N + L lengths and Q/K chunk sizes", text)
    parts = [int(n) for n in joint.groups() if n is not None]
    if any(n % int(c) for n in parts for c in chunks.groups()):
        raise Skip("joint attention whose parts are not whole Q / K chunks (TTNN pads each part apart)", text)
    return low.replace(joint.group(0), f"s{sum(parts)}")


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
    low = _joint_as_one_sequence(low, text)
    causal = "causal" in low
    heads = re.search(r"(\d+)\s*/\s*(\d+)\s*heads", low)
    shape = point.raw.get("shape") or {}
    grouped = (heads and heads.group(1) != heads.group(2)) or (
        shape.get("q_heads") is not None and shape.get("q_heads") != shape.get("kv_heads"))
    if grouped and not causal:
        raise Skip("non-causal grouped-query attention (q heads != kv heads): Loom's grouped kernel is causal", text)
    variant = str((point.raw.get("config") or {}).get("variant", ""))
    if not variant.lower().startswith("before (legacy)"):
        raise Skip("newer SDPA kernel variant (routed recipe / streaming): the TTNN SDPA baseline models "
                   "the legacy kernel", variant)
    m = point.metric("op_time") or point.metric("device_time_traced")
    value = number(m.value) if m is not None else None
    if value is None or m.unit != "ms":
        raise Skip("no op time in ms")
    heads_m = re.search(r"(\d+)\s*heads?", low)
    d_m, s_m = re.search(r"\bd(\d+)", low), re.search(r"\bs(\d+)", low)
    chunks = re.search(r"\bq(\d+)\s*/\s*k(\d+)", low)
    b_m = re.search(r"\bb(\d+)", low)
    if not (heads_m and d_m and s_m and chunks):
        raise Skip("description without heads, D, S and Q/K chunk sizes", text)
    B, H, L, D = int(b_m.group(1)) if b_m else 1, int(heads_m.group(1)), int(s_m.group(1)), int(d_m.group(1))
    KV = H
    if heads:
        H, KV = int(heads.group(1)), int(heads.group(2))
    elif shape.get("q_heads") is not None and shape.get("kv_heads") is not None:
        H, KV = int(shape["q_heads"]), int(shape["kv_heads"])
    qc, kc = int(chunks.group(1)), int(chunks.group(2))
    arch = arch_for(point.chip, (13, 10))
    stated = re.search(r"\b(lofi|hifi2|hifi3|hifi4)\b", low)
    fidelity = next((f for f in arch.matrix_engine.cycles_per_tile if stated and f.lower() == stated.group(1)), "")
    if stated and not fidelity:
        raise Skip(f"math fidelity {stated.group(1)} not priced in {arch.name}", text)
    default = cost.default_fidelity(arch, "bfloat16")
    tile = arch.tiling.tile_rows
    if D % tile or L % qc or L % kc or qc % tile or kc % tile:
        raise Skip("sequence or head dim not a whole number of chunks / tiles", text)
    if causal:
        from loom.baselines.schedules import ttnn_causal_attention
        from loom.errors import LoomError

        try:  # TTNN's own limits (L1, padding) and Loom's (the key chunk divides the query chunk)
            ttnn_causal_attention({"B": B, "H": H, "KV": KV, "L": L, "D": D}, arch, q_chunk=qc, k_chunk=kc)
        except LoomError as err:
            raise Skip(f"causal SDPA that TTNN's causal baseline cannot lay out: {err.message.split(':')[0]}",
                       text) from None
    spec = SimSpec("sdpa_causal", arch.name, (B, H, KV, L, D, qc, kc, fidelity)) if causal else \
        SimSpec("sdpa", arch.name, (B, H, L, D, qc, kc, fidelity))
    flop = 4.0 * B * H * L * L * D / 1e9 / (2 if causal else 1)  # causal: about half the score matrix

    def finish(results: list) -> Row:
        r = results[0]
        predicted = r["kernel_cycles"] / arch.clock_ghz / 1e6
        return Row(point.id, point.chip, point.kernel, "op_time_ms", value, predicted, None, arch.name,
                   "sdpa_causal_legacy" if causal else "sdpa_legacy", "bfloat16", flop,
                   f"B{B} H{H}{f'/{KV}' if KV != H else ''} L{L} D{D}, Q{qc}/K{kc}, {fidelity or default}, "
                   f"TTNN core split; {r['note']}")

    return Plan(point, [spec], finish)


def sdpa_figures(arch_name: str, B: int, H: int, L: int, D: int, qc: int, kc: int, fidelity: str = "") -> dict:
    """Compile the flash-attention example with TTNN's SDPA core split and the row's chunks; simulate."""
    from loom.arch import load_arch
    from loom.baselines.schedules import ttnn_flash_attention

    shape = {"B": B, "H": H, "L": L, "D": D}
    baseline = ttnn_flash_attention(shape, load_arch(arch_name))
    baseline.schedule.block_sizes = {"tile_m": qc, "tile_n": kc}
    return _simulated(baseline, "flash_attention", shape, fidelity)


def sdpa_causal_figures(arch_name: str, B: int, H: int, KV: int, L: int, D: int, qc: int, kc: int,
                        fidelity: str = "") -> dict:
    """Compile the causal-attention example with TTNN's causal SDPA (its core split and balanced Q split)
    at the row's chunks; simulate."""
    from loom.arch import load_arch
    from loom.baselines.schedules import ttnn_causal_attention

    shape = {"B": B, "H": H, "KV": KV, "L": L, "D": D}
    return _simulated(ttnn_causal_attention(shape, load_arch(arch_name), q_chunk=qc, k_chunk=kc),
                      "causal_attention", shape, fidelity)


def _simulated(baseline, example: str, shape: dict, fidelity: str = "") -> dict:
    from loom.kernel_file import load_kernel_file
    from loom.pipeline import compile as compile_kernel
    from loom.run import run

    source = load_kernel_file(EXAMPLES / f"{example}.py")
    args = source.example_args(shape, meta=True)
    arch, placed_on = (baseline.arch, baseline.placed_on) if not fidelity else \
        (with_fidelity(baseline.arch, fidelity), baseline.placed_on and with_fidelity(baseline.placed_on, fidelity))
    compiled = compile_kernel(source.kernel, args, arch, shape=shape, schedule=baseline.schedule)
    sim = run(compiled, args, placed_on=placed_on).sim
    return {"kernel_cycles": float(sim.kernel_cycles),
            "note": "; ".join(baseline.schedule.notes[1:]) or "cores on the real grid"}


def with_fidelity(arch, fidelity: str):
    """The architecture with every input dtype's default math fidelity set to `fidelity` (a row's stated one)."""
    engine = arch.matrix_engine
    fidelities = {dtype: fidelity for dtype in engine.default_fidelity}
    return arch.model_copy(update={"matrix_engine": engine.model_copy(update={"default_fidelity": fidelities})})


BUILDERS["sdpa"] = sdpa_figures
BUILDERS["sdpa_causal"] = sdpa_causal_figures
