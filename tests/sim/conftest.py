"""Shared helpers for simulator tests: architectures and tiny program builders."""

from __future__ import annotations

import pytest

from loom.arch import Arch, load_arch


@pytest.fixture(scope="session")
def wh() -> Arch:
    return load_arch("wormhole_n150")


@pytest.fixture(scope="session")
def bh() -> Arch:
    return load_arch("blackhole_p150")


def with_rates(arch: Arch, **rates: float) -> Arch:
    """`arch` with some `rates.*` replaced (e.g. raised so that links are the bottleneck)."""
    return arch.model_copy(update={"rates": arch.rates.model_copy(update=rates)})
