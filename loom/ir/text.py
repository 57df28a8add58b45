"""MLIR text in and out: the context with every dialect Loom uses, printing and parsing."""

from __future__ import annotations

from functools import lru_cache

from xdsl.context import Context
from xdsl.dialects import affine, arith, builtin, func, linalg, math, memref, scf, tensor
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from loom.ir.dialect import Loom


@lru_cache(maxsize=1)
def _dialects() -> tuple:
    return (builtin.Builtin, func.Func, arith.Arith, math.Math, scf.Scf, affine.Affine, memref.MemRef,
            tensor.Tensor, linalg.Linalg, Loom)


def context() -> Context:
    """A fresh xDSL context that knows the standard dialects and `loom`."""
    ctx = Context()
    for dialect in _dialects():
        ctx.load_dialect(dialect)
    return ctx


def to_text(module: ModuleOp) -> str:
    return str(module) + "\n"


def parse(text: str) -> ModuleOp:
    """Parse MLIR text produced by Loom (or written by hand) and verify it."""
    module = Parser(context(), text).parse_module()
    module.verify()
    return module
