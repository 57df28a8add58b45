"""The compute role: what each compute op costs, and (in functional mode) what it computes.

Costs come from the architecture description only:
- `Matmul`: `m*n*k` tile products x `matrix_engine.cycles_per_tile[fidelity]`, scaled by
  `max(rows_valid, min_rows_full_rate) / tile_rows` for thin tiles (rows below the minimum waste
  throughput), plus `matrix_engine.fixed_latency_cycles` per output subblock (one if none given).
  The default fidelity is `matrix_engine.default_fidelity` of the inputs' dtypes (the slower of
  the two when they differ).
- Element-wise and vector ops: output tiles x `vector_unit.cycles_per_tile[op]` (`div` is
  `recip` then `mul`; `neg` and `scale` are priced as `mul`; `fill`, `copy` and packing as `copy`).
- `Reduce`: input tiles x `reduce_row`; `Transpose`: tiles x `transpose`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from loom.backend.program import (
    Binary,
    Copy,
    Fill,
    Matmul,
    ProgramError,
    Reduce,
    Ref,
    Transpose,
    Unary,
)

if TYPE_CHECKING:
    from loom.arch import Arch

Shape = tuple[int, int]


def op_cycles(arch: Arch, ins: object, shape: Callable[[Ref], Shape], dtype: Callable[[Ref], str]) -> float:
    """Cycles the compute role spends on `ins`; `shape`/`dtype` resolve an operand."""
    vec = arch.vector_unit.cycles_per_tile

    def cost(op: str) -> int:
        if op not in vec:
            raise ProgramError(f"{type(ins).__name__}: expected vector_unit.cycles_per_tile.{op} in "
                               f"{arch.name}, found only {', '.join(vec)}")
        return vec[op]

    if isinstance(ins, Matmul):
        me = arch.matrix_engine
        m, k = shape(ins.a)
        n = shape(ins.acc)[1]
        fidelity = ins.fidelity or _default_fidelity(arch, dtype(ins.a), dtype(ins.b))
        if fidelity not in me.cycles_per_tile:
            raise ProgramError(f"Matmul: expected a fidelity priced by {arch.name} "
                               f"({', '.join(me.cycles_per_tile)}), found '{fidelity}'")
        rows = ins.rows_valid or arch.tiling.tile_rows
        tile_rows = arch.tiling.tile_rows
        thin = max(rows, me.min_rows_full_rate) / tile_rows if rows < tile_rows else 1.0
        subblocks = (m // ins.subblock[0]) * (n // ins.subblock[1]) if ins.subblock else 1
        return m * n * k * me.cycles_per_tile[fidelity] * thin + subblocks * me.fixed_latency_cycles
    if isinstance(ins, Binary):
        r, c = shape(ins.dst)
        per = cost("recip") + cost("mul") if ins.op == "div" else cost(ins.op)
        return r * c * per
    if isinstance(ins, Unary):
        r, c = shape(ins.dst)
        return r * c * cost({"neg": "mul", "scale": "mul"}.get(ins.op, ins.op))
    if isinstance(ins, Reduce):
        r, c = shape(ins.src)
        return r * c * cost("reduce_row")
    if isinstance(ins, Transpose):
        r, c = shape(ins.dst)
        return r * c * cost("transpose")
    if isinstance(ins, (Copy, Fill)):
        r, c = shape(ins.dst)
        return r * c * cost("copy")
    raise ProgramError(f"expected a compute op, found {type(ins).__name__}")


def _default_fidelity(arch: Arch, a: str, b: str) -> str:
    me = arch.matrix_engine
    found = [me.default_fidelity[d] for d in (a, b) if d in me.default_fidelity]
    if not found:
        raise ProgramError(f"Matmul: expected matrix_engine.default_fidelity for dtype '{a}' in {arch.name} "
                           f"(or an explicit fidelity), found entries only for "
                           f"{', '.join(me.default_fidelity)}")
    return max(found, key=lambda f: me.cycles_per_tile[f])


def apply(ins: object, read: Callable[..., np.ndarray], write: Callable[[Ref, np.ndarray], None],
          shape: Callable[[Ref], Shape], tile: Shape) -> None:
    """Run `ins` on float32 matrices: `read(ref)` gives an input, `read(ref, True)` the current value
    of an output location (a Matmul accumulator), `write(ref, m)` stores a result; `tile` is the
    tile shape in elements."""
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
            a, b = read(ins.a), read(ins.b)
            b = {"none": b, "col": b[:, :1], "row": b[:1, :], "scalar": b[:1, :1]}[ins.bcast]
            fn = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "max": np.maximum}
            write(ins.dst, fn[ins.op](a, b).astype(np.float32))
        elif isinstance(ins, Unary):
            x = read(ins.src)
            fn = {"exp": np.exp, "recip": lambda v: 1.0 / v, "neg": np.negative,
                  "scale": lambda v: v * np.float32(ins.scale), "copy": lambda v: v}
            write(ins.dst, fn[ins.op](x).astype(np.float32))
        elif isinstance(ins, Reduce):
            x = read(ins.src)
            red = x.max(axis=1) if ins.op == "max" else x.sum(axis=1) * np.float32(ins.scale)
            out = np.zeros((x.shape[0], tile[1]), dtype=np.float32)
            out[:, 0] = red
            write(ins.dst, out)
        elif isinstance(ins, Copy):
            write(ins.dst, read(ins.src))
