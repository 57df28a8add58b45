"""Baselines Loom's results are compared against (TTNN's default program configs)."""

from __future__ import annotations

from loom.baselines.ttnn import (
    MatmulConfig,
    SdpaConfig,
    SdpaDecodeConfig,
    get_mcast_1d_config,
    matmul_default_config,
    sdpa_decode_config,
    sdpa_prefill_config,
)

__all__ = [
    "MatmulConfig",
    "SdpaConfig",
    "SdpaDecodeConfig",
    "get_mcast_1d_config",
    "matmul_default_config",
    "sdpa_decode_config",
    "sdpa_prefill_config",
]
