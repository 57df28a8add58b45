"""The compute role's ops: what each asks of the Tensix threads, and what it computes.

`op_stages` reads an instruction's operand shapes and formats and asks `loom.cost` for its
unpack / math / pack cycles (the numbers the model uses too); `loom.sim.tensix` runs them on
the core's three threads. `apply` computes the op in functional mode, elementwise and reduction
ops through the op table's numpy form (`loom.ops`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from loom import cost, ops
from loom.backend.program import (
    Binary,
    Copy,
    Fill,
    Mask,
    Matmul,
    ProgramError,
    Reduce,
    Ref,
    Scalar,
    Transpose,
    Unary,
    operands,
)
from loom.cost import Stages
from loom.errors import LoomError

if TYPE_CHECKING:
    from loom.arch import Arch

Shape = tuple[int, int]
_FORM = {Binary: "binary", Scalar: "binary", Unary: "unary"}


def op_stages(arch: Arch, ins: object, shape: Callable[[Ref], Shape], dtype: Callable[[Ref], str],
              live: int | None = None) -> Stages:
    """What `ins` asks of the core's unpacker, math and packer threads (`loom.cost`); `shape` and
    `dtype` resolve an operand; `live`, for an op on live tiles (`ins.live`), how many of its block's
    tiles are live."""
    try:
        return _stages(arch, ins, shape, dtype, live)
    except LoomError as err:
        raise ProgramError(f"{type(ins).__name__}: {err.message}") from None


def _stages(arch: Arch, ins: object, shape: Callable[[Ref], Shape], dtype: Callable[[Ref], str],
            live: int | None) -> Stages:
    if isinstance(ins, Matmul):
        m, k = shape(ins.a)
        n = shape(ins.acc)[1]
        fidelity = ins.fidelity or cost.default_fidelity(arch, dtype(ins.a), dtype(ins.b))
        products = out_tiles = None
        if live is not None:  # live tiles of `a` (rows of products skipped) or of the output
            products, out_tiles = (live * n, None) if ins.live.buffer == ins.a.name else (live * k, live)
        return cost.matmul(arch, m, n, k, (dtype(ins.a), dtype(ins.b), dtype(ins.acc)), fidelity, ins.rows_valid,
                           ins.subblock, products, out_tiles)
    if isinstance(ins, Reduce):
        r, c = shape(ins.src)
        return cost.reduce(arch, ops.lookup("reduce", ins.op), r, c, dtype(ins.src), dtype(ins.dst), live)
    r, c = shape(ins.dst)
    tiles = r * c if live is None else live
    if isinstance(ins, (Binary, Scalar, Unary)):
        op = ops.lookup(_FORM[type(ins)], ins.op)
        return cost.eltwise(arch, op, tiles, tuple(dtype(s) for s in operands(ins)[0]), dtype(ins.dst))
    if isinstance(ins, Mask):
        return cost.eltwise(arch, ops.lookup("mask", "mask"), tiles, tuple(dtype(s) for s in operands(ins)[0]),
                            dtype(ins.dst))
    if isinstance(ins, (Transpose, Copy, Fill)):
        key = "transpose" if isinstance(ins, Transpose) else "copy"
        return cost.datacopy(arch, key, tiles, None if isinstance(ins, Fill) else dtype(ins.src), dtype(ins.dst))
    raise ProgramError(f"expected a compute op, found {type(ins).__name__}")


def skips(ins: object, env: dict[str, int], rows: int, cols: int, tile: Shape) -> bool:
    """Whether a compute op is a no-op the core skips: an in-place `Mask` on a block it keeps whole
    (a kernel tests the block's corners on its loop indices, as TTNN's causal SDPA masks only the
    chunks on the diagonal). `rows` x `cols` tiles of `tile` elements."""
    if not isinstance(ins, Mask) or ins.src != ins.dst or ins.data is not None:
        return False
    y0, x0 = ins.row_start.eval(env), ins.col_start.eval(env)
    y1, x1 = y0 + rows * tile[0] - 1, x0 + cols * tile[1] - 1
    return all(a * (y0 if a >= 0 else y1) + b * (x0 if b >= 0 else x1) + k >= 0 for a, b, k in ins.keep)


def apply(ins: object, read: Callable[..., np.ndarray], write: Callable[[Ref, np.ndarray], None],
          shape: Callable[[Ref], Shape], tile: Shape, env: dict[str, int] | None = None,
          dead: np.ndarray | None = None) -> None:
    """Run `ins` on float32 matrices: `read(ref)` gives an input, `read(ref, True)` the current value
    of an output location (a Matmul accumulator), `write(ref, m)` stores a result; `tile` is the
    tile shape in elements, `env` the loop variables' values (a Mask's position). `dead`, for an op on
    live tiles, marks the elements of its `live.buffer`'s block it skips: a reduction or a matmul's
    `a` reads them as the reduction's identity or zero; an output gets NaN there, so that a consumer
    which reads them anyway spoils the result instead of passing."""
    if dead is not None:
        apply(ins, _skipping(ins, read, dead), _poisoning(ins, write, dead), shape, tile, env)
        return
    with np.errstate(all="ignore"):
        if isinstance(ins, Fill):
            r, c = shape(ins.dst)
            write(ins.dst, np.full((r * tile[0], c * tile[1]), ins.value, dtype=np.float32))
        elif isinstance(ins, Matmul):
            b = read(ins.b)
            p = read(ins.a) @ (b.T if ins.transpose_b else b)
            write(ins.acc, read(ins.acc, True) + p if ins.accumulate else p)
        elif isinstance(ins, Transpose):
            write(ins.dst, read(ins.src).T)
        elif isinstance(ins, Binary):
            a, b = read(ins.a), _broadcast(np.tile(read(ins.b), (ins.repeat, 1)), ins.bcast)
            write(ins.dst, ops.lookup("binary", ins.op).numpy(a, b).astype(np.float32))
        elif isinstance(ins, Scalar):
            a = read(ins.a)
            b = np.full_like(a, np.float32(ins.value))
            fn = ops.lookup("binary", ins.op).numpy
            write(ins.dst, (fn(b, a) if ins.reverse else fn(a, b)).astype(np.float32))
        elif isinstance(ins, Unary):
            x = ops.lookup("unary", ins.op).numpy(read(ins.src))
            write(ins.dst, (x * np.float32(ins.scale) if ins.scale != 1.0 else x).astype(np.float32))
        elif isinstance(ins, Reduce):
            x = read(ins.src)
            red = ops.lookup("reduce", ins.op).numpy(x) * np.float32(ins.scale)
            out = np.zeros((x.shape[0], tile[1]), dtype=np.float32)
            out[:, 0] = red
            write(ins.dst, out)
        elif isinstance(ins, Mask):
            x = read(ins.src)
            rows = ins.row_start.eval(env) + np.arange(x.shape[0])[:, None]
            cols = ins.col_start.eval(env) + np.arange(x.shape[1])[None, :]
            keep = np.ones(x.shape, dtype=bool)
            data = 0.0 if ins.data is None else _broadcast(read(ins.data), ins.data_bcast)
            for (a, b, k), e in zip(ins.keep, ins.data_coeffs or (0,) * len(ins.keep)):
                keep &= a * rows + b * cols + k + e * data >= 0
            write(ins.dst, ops.lookup("mask", "mask").numpy(x, keep, ins.fill).astype(np.float32))
        elif isinstance(ins, Copy):
            write(ins.dst, read(ins.src))


def _skipping(ins: object, read: Callable[..., np.ndarray], dead: np.ndarray) -> Callable[..., np.ndarray]:
    """`read` with the dead elements of a reduction's input or a matmul's `a` as what skipping them means."""
    skipped = ins.src if isinstance(ins, Reduce) else ins.a if isinstance(ins, Matmul) else None
    if skipped is None or skipped.name != ins.live.buffer:
        return read
    value = np.float32(ops.lookup("reduce", ins.op).identity if isinstance(ins, Reduce) else 0.0)

    def skipping(ref: Ref, out: bool = False) -> np.ndarray:
        m = read(ref, out)
        return np.where(dead, value, m).astype(np.float32) if ref == skipped and not out else m
    return skipping


def _poisoning(ins: object, write: Callable[[Ref, np.ndarray], None], dead: np.ndarray) -> Callable:
    """`write` with NaN at the dead elements of an output on live tiles."""
    def poisoning(ref: Ref, m: np.ndarray) -> None:
        write(ref, np.where(dead, np.float32(np.nan), m).astype(np.float32) if ref.name == ins.live.buffer else m)
    return poisoning


def _broadcast(b: np.ndarray, bcast: str) -> np.ndarray:
    """A second operand as it broadcasts over a block ("col": its first column, one value per row)."""
    return {"none": b, "col": b[:, :1], "row": b[:1, :], "scalar": b[:1, :1]}[bcast]
