"""Loom: a tuning-free compiler for tile-based SPMD kernels on spatial dataflow accelerators."""

from __future__ import annotations

from loom.errors import LoomError
from loom.pipeline import Lowering, lower

__all__ = ["LoomError", "Lowering", "lower"]
