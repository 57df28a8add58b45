"""The op table: every elementwise and row-reduction op Loom compiles, described once.

Each entry says, for one op, everything a stage needs:
- `aten`: the Helion / ATen targets that lower to it (stage 1 looks nodes up here),
- `ir`: the scalar op of its `linalg.generic` body (stage 1 builds it; the backend reads it back),
- `form`: its per-core instruction (`loom.backend.program.Unary`, `Binary` or `Reduce`, with
  `op=name`; a unary or reduction result is multiplied by the instruction's `scale`, so `scale`
  is the identity times a constant; the position mask's is `Mask`),
- `numpy`: what it computes, on float32 matrices (the simulator's functional mode),
- `unit`: which Tensix unit runs its math: `fpu` (the matrix unit's elementwise datapath) or
  `sfpu` (the vector unit),
- `cost`: the keys of `vector_unit.cycles_per_tile` in the architecture YAML whose cycles its math
  takes per tile (`div` is a reciprocal then a multiply); `loom.cost` adds unpack and pack,
- `ttlang`: its TT-Lang expression (`{a}`, `{b}` the operands), or `None` with `no_ttlang` saying why.

Adding an op is one entry here plus its cost lines in the architecture YAMLs. `check_module`
refuses, at compile time and with the user's line, an op that has no entry or whose cost the
architecture does not give: nothing is discovered missing at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects import math as mathd

from loom.errors import UnsupportedError
from loom.ir.dialect import (
    COMPARES,
    FP8_ROUNDINGS,
    ROUNDINGS,
    GeluOp,
    GeluTanhOp,
    PositionMaskOp,
    SelectNotOp,
    SelectOp,
    SigmoidOp,
    SignOp,
)

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from loom.arch import Arch
    from loom.errors import SourceLocation

Form = Literal["unary", "binary", "reduce", "mask"]
Unit = Literal["fpu", "sfpu"]


@dataclass(frozen=True)
class Op:
    """One compute op; see the module docstring for the fields."""

    name: str
    form: Form
    unit: Unit
    cost: tuple[str, ...]
    numpy: Callable[..., np.ndarray]
    aten: tuple[str, ...] = ()
    ir: type | None = None
    ttlang: str | None = None
    no_ttlang: str = ""
    identity: float | None = None  # reductions: the value padding and empty inputs take

    @property
    def ir_name(self) -> str | None:
        """The body op's MLIR name (`arith.addf`), as the backend reads it back."""
        return self.ir.name if self.ir is not None else None


def _recip(x: np.ndarray) -> np.ndarray:
    return np.float32(1.0) / x


def _torch(fn: Callable) -> Callable[[np.ndarray], np.ndarray]:
    """A torch function on float32 numpy matrices (numpy has no erf, gelu or stable sigmoid)."""
    import torch

    return lambda x: fn(torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))).numpy()


def _rounded_to(dtype_name: str) -> Callable[[np.ndarray], np.ndarray]:
    """x rounded to the values of torch's `dtype_name` (an fp8 type), as torch casts, back in float32."""
    def rounded(x):
        import torch

        return x.to(getattr(torch, dtype_name)).float()
    return _torch(rounded)


def _as_floats(compare: Callable) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A numpy comparison whose result is 0.0 / 1.0 in float32."""
    return lambda a, b: compare(a, b).astype(np.float32)


def _gelu(x):
    import torch

    return torch.nn.functional.gelu(x)


def _gelu_tanh(x):
    import torch

    return torch.nn.functional.gelu(x, approximate="tanh")


_TABLE = (
    # binary ops: b broadcast along rows, columns or as a scalar by the instruction's `bcast`
    Op("add", "binary", "fpu", ("add",), np.add, ("aten.add.Tensor",), arith.AddfOp, "{a} + {b}"),
    Op("sub", "binary", "fpu", ("sub",), np.subtract, ("aten.sub.Tensor",), arith.SubfOp, "{a} - {b}"),
    Op("mul", "binary", "fpu", ("mul",), np.multiply, ("aten.mul.Tensor",), arith.MulfOp, "{a} * {b}"),
    Op("div", "binary", "sfpu", ("recip", "mul"), np.divide, ("aten.div.Tensor",), arith.DivfOp, "{a} / {b}"),
    Op("max", "binary", "sfpu", ("max",), np.maximum,
       ("aten.maximum.default", "aten.clamp_min.default", "aten.clamp_min.Tensor"), arith.MaximumfOp,
       "ttl.math.max({a}, {b})"),
    Op("min", "binary", "sfpu", ("min",), np.minimum,
       ("aten.minimum.default", "aten.clamp_max.default", "aten.clamp_max.Tensor"), arith.MinimumfOp,
       "ttl.math.min({a}, {b})"),
    # comparisons (0.0 / 1.0, torch's bool as floats) and the selects `torch.where(cond, a, b)` becomes:
    # select(c, a) + select_not(c, b), exact since one of the two is 0.0 (loom.frontend.compute.lower_where)
    *(Op(p, "binary", "sfpu", ("compare",), _as_floats(f),
         (f"aten.{p}.Tensor", f"aten.{p}.Scalar"), COMPARES[p], no_ttlang="Loom emits no TT-Lang comparisons yet")
      for p, f in (("gt", np.greater), ("ge", np.greater_equal), ("lt", np.less), ("le", np.less_equal),
                   ("eq", np.equal), ("ne", np.not_equal))),
    Op("select", "binary", "sfpu", ("select",), lambda c, x: np.where(c != 0, x, np.float32(0)), (), SelectOp,
       no_ttlang="Loom emits no TT-Lang select yet"),
    Op("select_not", "binary", "sfpu", ("select",), lambda c, x: np.where(c == 0, x, np.float32(0)), (),
       SelectNotOp, no_ttlang="Loom emits no TT-Lang select yet"),
    # unary ops
    Op("sign", "unary", "sfpu", ("compare",), np.sign, ("aten.sign.default",), SignOp,
       no_ttlang="Loom emits no TT-Lang sign yet"),  # two comparisons with 0 in one routine: priced as one
    *(Op(n, "unary", "sfpu", ("round",), f, (f"aten.{n}.default",), ROUNDINGS[n],
         no_ttlang=f"Loom emits no TT-Lang {n} yet")
      for n, f in (("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc), ("round", np.round))),
    # a cast to an fp8 type inside the loop: rounded to its values, held in the wider format (`tiles.HELD_AS`);
    # priced as a rounding routine (assumption: the vector unit rounds the mantissa and clamps the exponent)
    *(Op(f"round_{n}", "unary", "sfpu", ("round",), _rounded_to(n),
         (), FP8_ROUNDINGS[n], no_ttlang="TT-Lang 1.1.6 has no fp8 types") for n in FP8_ROUNDINGS),
    Op("expm1", "unary", "sfpu", ("exp",), np.expm1, ("aten.expm1.default",), mathd.ExpM1Op,
       no_ttlang="Loom emits no TT-Lang expm1 yet"),
    Op("exp", "unary", "sfpu", ("exp",), np.exp, ("aten.exp.default",), mathd.ExpOp, "ttl.math.exp({a})"),
    Op("exp2", "unary", "sfpu", ("exp",), np.exp2, ("aten.exp2.default",), mathd.Exp2Op, "ttl.math.exp2({a})"),
    Op("log", "unary", "sfpu", ("log",), np.log, ("aten.log.default",), mathd.LogOp, "ttl.math.log({a})"),
    Op("log2", "unary", "sfpu", ("log", "mul"), np.log2, ("aten.log2.default",), mathd.Log2Op,
       no_ttlang="TT-Lang 1.1.6 has no log2"),  # log, scaled by 1 / ln 2
    Op("neg", "unary", "sfpu", ("mul",), np.negative, ("aten.neg.default",), arith.NegfOp, "-{a}"),
    Op("abs", "unary", "sfpu", ("abs",), np.abs, ("aten.abs.default",), mathd.AbsFOp, "ttl.math.abs({a})"),
    Op("sqrt", "unary", "sfpu", ("sqrt",), np.sqrt, ("aten.sqrt.default",), mathd.SqrtOp, "ttl.math.sqrt({a})"),
    Op("rsqrt", "unary", "sfpu", ("rsqrt",), lambda x: np.float32(1.0) / np.sqrt(x), ("aten.rsqrt.default",),
       mathd.RsqrtOp, "ttl.math.rsqrt({a})"),
    Op("tanh", "unary", "sfpu", ("tanh",), np.tanh, ("aten.tanh.default",), mathd.TanhOp, "ttl.math.tanh({a})"),
    Op("log1p", "unary", "sfpu", ("log",), np.log1p, ("aten.log1p.default",), mathd.Log1pOp, "ttl.math.logp1({a})"),
    Op("sin", "unary", "sfpu", ("sin",), np.sin, ("aten.sin.default",), mathd.SinOp, "ttl.math.sin({a})"),
    Op("cos", "unary", "sfpu", ("cos",), np.cos, ("aten.cos.default",), mathd.CosOp, "ttl.math.cos({a})"),
    Op("erf", "unary", "sfpu", ("erf",), _torch(lambda x: x.erf()), ("aten.erf.default",), mathd.ErfOp,
       no_ttlang="TT-Lang 1.1.6 has no erf"),
    Op("sigmoid", "unary", "sfpu", ("sigmoid",), _torch(lambda x: x.sigmoid()), ("aten.sigmoid.default",),
       SigmoidOp, "ttl.math.sigmoid({a})"),
    Op("gelu", "unary", "sfpu", ("gelu",), _torch(_gelu),
       ("_gelu_erf",), GeluOp, "ttl.math.gelu({a})"),
    Op("gelu_tanh", "unary", "sfpu", ("gelu",), _torch(_gelu_tanh), ("_gelu_tanh_approx",), GeluTanhOp,
       no_ttlang="TT-Lang 1.1.6's gelu is the erf form only"),
    Op("recip", "unary", "sfpu", ("recip",), _recip, ("aten.reciprocal.default",), None, "ttl.math.recip({a})"),
    Op("copy", "unary", "fpu", ("copy",), lambda x: x, (), None, "{a}"),
    Op("scale", "unary", "fpu", ("mul",), lambda x: x, (), None, "{a}"),  # x times a constant: `* c`
    # the position mask (a tail's padding, Helion's `_mask_to`; a `torch.where` on `tile.index` compares):
    # `fill` where the element's position fails the mask. Its numpy form takes the block, a boolean array
    # of the elements kept, and the fill value. Priced as one FPU eltwise op with a mask tile, as TTNN
    # masks a padded last tile (softmax's `mask_padded_data`,
    # ttnn/operations/normalization/softmax/device/softmax_program_factory_attention_optimized.cpp) and
    # adds a causal mask tile in SDPA (its writer kernel generates the tile, the compute adds it)
    Op("mask", "mask", "fpu", ("mul",), lambda x, keep, fill: np.where(keep, x, np.float32(fill)),
       ("_mask_to", "aten.where.self"), PositionMaskOp, no_ttlang="TT-Lang 1.1.6 has no tile-position mask"),
    # row reductions (dst is one tile wide; `scale` multiplies a sum)
    Op("max", "reduce", "fpu", ("reduce_row",), lambda x: x.max(axis=1), ("aten.amax.default", "aten.max.dim"),
       arith.MaximumfOp, "ttl.math.reduce_max({a}, dims=[-1], shape={shape})", identity=-np.inf),
    Op("min", "reduce", "fpu", ("reduce_row",), lambda x: x.min(axis=1), ("aten.amin.default", "aten.min.dim"),
       arith.MinimumfOp, no_ttlang="TT-Lang 1.1.6 reduces by max and sum only", identity=np.inf),
    Op("sum", "reduce", "fpu", ("reduce_row",), lambda x: x.sum(axis=1),
       ("aten.sum.dim_IntList", "aten.mean.dim", "aten.sum.default"), arith.AddfOp,
       "ttl.math.reduce_sum({a}, dims=[-1], shape={shape})", identity=0.0),
)

_BY_FORM: dict[tuple[Form, str], Op] = {(op.form, op.name): op for op in _TABLE}
_BY_ATEN: dict[str, Op] = {target: op for op in _TABLE for target in op.aten}
_BY_IR: dict[tuple[bool, str], Op] = {(op.form == "reduce", op.ir_name): op for op in _TABLE if op.ir is not None}
CONVERSIONS = frozenset({"arith.extf", "arith.truncf", "arith.sitofp", "arith.fptosi"})
"""Body ops that only change the element type: the unpacker and packer convert formats, so they
cost no math and have no instruction of their own."""


def all_ops() -> tuple[Op, ...]:
    """Every entry of the table."""
    return _TABLE


def lookup(form: Form, name: str) -> Op:
    """The entry of a per-core instruction's op (`Binary(op="add")` -> `lookup("binary", "add")`)."""
    try:
        return _BY_FORM[(form, name)]
    except KeyError:
        known = ", ".join(sorted(n for f, n in _BY_FORM if f == form))
        raise UnsupportedError(f"expected a {form} op of the op table ({known}), found '{name}'") from None


def from_aten(target: str) -> Op | None:
    """The entry a Helion / ATen target lowers to, if any."""
    return _BY_ATEN.get(target)


def from_ir(name: str, reduction: bool = False) -> Op | None:
    """The entry whose generic body op is `name` (`arith.addf`), elementwise or reduction."""
    return _BY_IR.get((reduction, name))


def missing_cost(op: Op, arch: Arch) -> list[str]:
    """The YAML fields `op` needs that `arch` does not give."""
    table = arch.vector_unit.cycles_per_tile
    return [f"vector_unit.cycles_per_tile.{key}" for key in op.cost if key not in table]


def check_module(module: ModuleOp, arch: Arch, locate: Callable[[str], SourceLocation | None]) -> None:
    """Refuse, with the user's line, a compute op with no entry or no cost on `arch`.

    `locate` turns an op's `loom.loc` ("file.py:LINE") into the user's source location."""
    from xdsl.dialects.linalg.ops import GenericOp, IteratorType

    for generic in module.walk():
        if not isinstance(generic, GenericOp):
            continue
        loc = generic.attributes.get("loom.loc")
        where = locate(loc.data) if loc is not None else None
        reduction = any(t.data == IteratorType.REDUCTION for t in generic.iterator_types)
        body = [o.name for o in generic.body.block.ops if o.name != "linalg.yield" and o.name not in CONVERSIONS]
        if len(body) > 1:
            raise UnsupportedError(f"an elementwise body of several ops ({', '.join(body)}) has no per-core "
                                   "form; expected one op per generic", where)
        for name in body:
            op = from_ir(name, reduction)
            if op is None:
                kind = "reduction" if reduction else "elementwise op"
                raise UnsupportedError(f"{kind} `{name}` is not in Loom's op table (loom/ops.py)", where)
            missing = missing_cost(op, arch)
            if missing:
                raise UnsupportedError(f"`{op.name}` has no cost on {arch.name}: expected {', '.join(missing)} "
                                       f"in loom/archs/{arch.name}.yaml", where)


__all__ = ["CONVERSIONS", "Op", "all_ops", "check_module", "from_aten", "from_ir", "lookup", "missing_cost"]
