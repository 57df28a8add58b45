"""The second baseline, TTNN hand-tuned: the program configs of a user who passes one, as schedules.

TTNN's default (`schedules.TTNN`) is the weak anchor: it picks 32 x 32 attention chunks ("by
design ... conservative", tt-metal #51911), and anyone who cares passes a program config.
- GEMM: the GEMM_FLOPS report test's rule (`ttnn_hand_tuned`): 2-D multicast on the full grid,
  one candidate per in0_block_w divisor with the first output split that fits L1, fp32
  accumulation off and packer L1 accumulation on.
- Flash Attention: production chunk sizes (tt_transformers runs SDPA with Q/K chunks of 128-256):
  q_chunk, k_chunk in {64, 128, 256}, each pair whose L1 TTNN allocates, with TTNN's K/V chains and
  multicast exactly as the default baseline has them (`ttnn_sdpa.kv_chains`). A size that does not
  divide the sequence (TTNN's padding is not reproduced) is replaced by the largest multiple of 32
  below it that does, as a user tuning that length would (L 960: 64, 96, 192).
- Causal attention: the production chunk pairs and those the causal SDPA rows of the ground truth state
  (Q128/K512), each with TTNN's balanced split where TTNN turns it on.
- Flash Decode: TTNN's default, which is what tt_transformers runs: the one candidate.

Each returns its candidates; the caller simulates them and keeps the best (`keep_best`), as the
report kept its best configuration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import product

from loom.arch import Arch
from loom.baselines.schedules import (
    TTNN,
    Baseline,
    gemm_baseline,
    ttnn_causal_attention,
    ttnn_flash_attention,
    ttnn_flash_decode,
)
from loom.baselines.ttnn_hand_tuned import hand_tuned_matmul_configs
from loom.errors import LoomError
from loom.schedule import ScheduleError

PRODUCTION_CHUNKS = (64, 128, 256)
"""SDPA chunk sizes production models pass (tt_transformers: Q/K chunks of 128-256; 64 for short sequences)."""
STATED_CAUSAL_CHUNKS = ((256, 256), (128, 512))
"""The (q_chunk, k_chunk) pairs the causal SDPA rows of ../shared/reference/ground_truth/sdpa_blackhole_p150.yaml
state (tt_transformers prefill Q256/K256; Qwen3-VL text Q128/K512)."""

KINDS = ("default", "tuned")
"""The baselines `loom bench --baseline` names: TTNN's default, TTNN hand-tuned."""


def tuned_gemm(shape: dict, arch: Arch, dtype: str = "bfloat16") -> list[Baseline]:
    configs = hand_tuned_matmul_configs(shape["M"], shape["K"], shape["N"], arch, dtype)
    if not configs:
        raise ScheduleError("no divisor of the GEMM_FLOPS report test's rule fits L1")
    out = []
    for cfg in configs:
        baseline = gemm_baseline(cfg, shape, arch, dtype, packer_l1_acc=True)
        baseline.schedule.notes[1:1] = list(cfg.notes)
        out.append(baseline)
    return out


def tuned_flash_attention(shape: dict, arch: Arch) -> list[Baseline]:
    chunks = user_chunks(shape["L"])
    return _chunk_sweep(ttnn_flash_attention, product(chunks, chunks), shape, arch)


def user_chunks(length: int, tile: int = 32) -> tuple[int, ...]:
    """The production chunk sizes for a sequence of `length`: each that does not divide it replaced by the
    largest multiple of `tile` below it that does."""
    def dividing(chunk: int) -> int:
        return next((c for c in range(chunk, 0, -tile) if length % c == 0), chunk)
    return tuple(sorted({dividing(c) for c in PRODUCTION_CHUNKS}))


def _chunk_sweep(sdpa: Callable[..., Baseline], pairs, shape: dict, arch: Arch) -> list[Baseline]:
    """TTNN's SDPA `sdpa` at each (q_chunk, k_chunk) of `pairs` it runs; ScheduleError when none does."""
    out, refused = [], []
    for q_chunk, k_chunk in pairs:
        try:
            baseline = sdpa(shape, arch, q_chunk, k_chunk)
        except ScheduleError as err:
            refused.append(f"{q_chunk}x{k_chunk}: {err.message}")
            continue
        kind = "production chunk sizes" if {q_chunk, k_chunk} <= set(PRODUCTION_CHUNKS) else "chunk sizes"
        baseline.schedule.notes.insert(1, f"{kind}: q_chunk {q_chunk}, k_chunk {k_chunk}")
        out.append(baseline)
    if not out:
        raise ScheduleError("no chunk pair runs here: " + "; ".join(refused))
    return out


def tuned_flash_decode(shape: dict, arch: Arch) -> list[Baseline]:
    baseline = ttnn_flash_decode(shape, arch)
    baseline.schedule.notes.insert(1, "TTNN hand-tuned = TTNN's default here: tt_transformers runs decode with it")
    return [baseline]


def tuned_causal_attention(shape: dict, arch: Arch) -> list[Baseline]:
    pairs = sorted(set(product(PRODUCTION_CHUNKS, PRODUCTION_CHUNKS)) | set(STATED_CAUSAL_CHUNKS))
    return _chunk_sweep(ttnn_causal_attention, pairs, shape, arch)


TTNN_TUNED = {"matmul": tuned_gemm, "flash_attention": tuned_flash_attention, "flash_decode": tuned_flash_decode,
              "causal_attention": tuned_causal_attention}


def candidates(kind: str, kernel: str, shape: dict, arch: Arch) -> list[Baseline]:
    """The schedules baseline `kind` ("default" or "tuned") runs for `kernel` at `shape`."""
    if kind not in KINDS:
        raise ValueError(f"unknown baseline '{kind}'; expected one of {', '.join(KINDS)}")
    return [TTNN[kernel](shape, arch)] if kind == "default" else TTNN_TUNED[kernel](shape, arch)


@dataclass
class Best:
    """The best simulated candidate: it, its cycles, how many candidates ran, and why the others did not."""

    baseline: Baseline
    cycles: float
    simulated: int
    refused: list[str] = field(default_factory=list)


def keep_best(baselines: list[Baseline], simulate: Callable[[Baseline], float]) -> Best:
    """Simulate every candidate and keep the fastest; one Loom cannot compile or run is set aside
    with its reason. `ScheduleError` when none runs; a lone candidate's own error when it is the only one."""
    if len(baselines) == 1:
        return Best(baselines[0], simulate(baselines[0]), 1)
    best, simulated, refused = None, 0, []
    for baseline in baselines:
        try:
            cycles = simulate(baseline)
        except LoomError as err:
            refused.append(f"{baseline.schedule.block_sizes}: {err.message}")
            continue
        simulated += 1
        if best is None or cycles < best[1]:
            best = (baseline, cycles)
    if best is None:
        raise ScheduleError("no candidate runs: " + "; ".join(refused))
    return Best(best[0], best[1], simulated, refused)
