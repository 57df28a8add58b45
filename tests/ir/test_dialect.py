"""The loom dialect's verifiers reject malformed ops with a sentence naming the problem."""

from __future__ import annotations

import pytest
from xdsl.utils.exceptions import VerifyException

from loom.ir.text import parse

HEADER = "builtin.module {\n  func.func @f(%m: memref<64x64xbf16>) {\n"
FOOTER = "    func.return\n  }\n}\n"


def module(body: str) -> str:
    return HEADER + body + FOOTER


def test_valid_ops_parse():
    parse(module(
        "    %t = loom.sym @tile_m {upper_bound = 64 : i64} : index\n"
        "    %v = loom.read %m : memref<64x64xbf16> -> tensor<64x64xbf16>\n"
        "    loom.write %v, %m : tensor<64x64xbf16>, memref<64x64xbf16>\n"
    ))


def test_sym_needs_positive_upper_bound():
    with pytest.raises(VerifyException, match="positive upper_bound, got 0"):
        parse(module("    %t = loom.sym @tile_m {upper_bound = 0 : i64} : index\n"))


def test_read_element_type_must_match():
    with pytest.raises(VerifyException, match="holds bf16 but the tile is f32"):
        parse(module("    %v = loom.read %m : memref<64x64xbf16> -> tensor<64x64xf32>\n"))


def test_write_rank_must_match():
    with pytest.raises(VerifyException, match="rank 2 but the tile has rank 1"):
        parse(module(
            "    %v = loom.read %m : memref<64x64xbf16> -> tensor<64x64xbf16>\n"
            "    %w = tensor.empty() : tensor<64xbf16>\n"
            "    loom.write %w, %m : tensor<64xbf16>, memref<64x64xbf16>\n"
        ))
