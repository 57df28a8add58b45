"""TTNN baselines: the program configs TTNN picks by default, reimplemented in Python.

Loom's results are compared against TTNN run the way a user runs it, with no program config;
these functions say which config that is (tenstorrent.md §3 for matmul, §4 for SDPA) and why.
The implementation is split into `ttnn_matmul` and `ttnn_sdpa`; this module gathers them.
"""

from __future__ import annotations

from loom.baselines.ttnn_matmul import (
    MatmulConfig,
    get_mcast_1d_config,
    matmul_default_config,
    matmul_subblock,
    multi_dim_per_core_factor,
)
from loom.baselines.ttnn_sdpa import (
    SdpaConfig,
    SdpaDecodeConfig,
    decode_k_chunk_size,
    sdpa_decode_config,
    sdpa_prefill_config,
)

__all__ = [
    "MatmulConfig",
    "SdpaConfig",
    "SdpaDecodeConfig",
    "decode_k_chunk_size",
    "get_mcast_1d_config",
    "matmul_default_config",
    "matmul_subblock",
    "multi_dim_per_core_factor",
    "sdpa_decode_config",
    "sdpa_prefill_config",
]
