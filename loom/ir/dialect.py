"""The `loom` dialect: symbolic values and (later stages) buffers, copies, semaphores.

`loom.sym @label {upper_bound = N}` introduces a compile-time unknown: the SSA
result is what IR uses wherever an index is expected, the label is the source
name (`tile_m`) that the solver and the reports use.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolNameConstraint,
    TensorType,
    UnitAttr,
    i32,
    i64,
)
from xdsl.dialects.math import FloatingPointLikeUnaryMathOperation
from xdsl.ir import Dialect
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure, SameOperandsAndResultType
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class SymOp(IRDLOperation):
    """A named compile-time unknown: `%t = loom.sym @tile_m {upper_bound = 2048 : i64} : index`."""

    name = "loom.sym"
    sym_name = prop_def(SymbolNameConstraint())
    upper_bound = prop_def(IntegerAttr)
    reduction = opt_prop_def(UnitAttr)
    masked = opt_prop_def(UnitAttr)  # a reduction masks its tail: block sizes divide the padded extent
    res = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "$sym_name attr-dict `:` type($res)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, label: str, upper_bound: int, reduction: bool = False, masked: bool = False):
        props: dict = {"sym_name": StringAttr(label), "upper_bound": IntegerAttr(upper_bound, i64)}
        if reduction:
            props["reduction"] = UnitAttr()
        if masked:
            props["masked"] = UnitAttr()
        super().__init__(properties=props, result_types=[IndexType()])
        self.res.name_hint = label

    @property
    def label(self) -> str:
        return self.sym_name.data

    def verify_(self) -> None:
        if self.upper_bound.value.data < 1:
            raise VerifyException(
                f"loom.sym @{self.label} must have a positive upper_bound, got {self.upper_bound.value.data}"
            )


def _check_same_elements(op: IRDLOperation, memref: MemRefType, tensor: TensorType) -> None:
    if memref.element_type != tensor.element_type:
        raise VerifyException(
            f"{op.name}: the global view holds {memref.element_type} but the tile is {tensor.element_type}"
        )
    if len(memref.shape) != len(tensor.shape):
        raise VerifyException(
            f"{op.name}: the global view has rank {len(memref.shape)} but the tile has rank {len(tensor.shape)}"
        )


@irdl_op_definition
class ReadOp(IRDLOperation):
    """Read a global-memory view (a `memref.subview`) as a tile value (stage 1, before data movement is explicit)."""

    name = "loom.read"
    source = operand_def(MemRefType)
    result = result_def(TensorType)
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source, result_type: TensorType):
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        _check_same_elements(self, self.source.type, self.result.type)


@irdl_op_definition
class WriteOp(IRDLOperation):
    """Write a tile value into a global-memory view (stage 1, before data movement is explicit)."""

    name = "loom.write"
    value = operand_def(TensorType)
    dest = operand_def(MemRefType)
    assembly_format = "$value `,` $dest attr-dict `:` type($value) `,` type($dest)"

    def __init__(self, value, dest):
        super().__init__(operands=[value, dest])

    def verify_(self) -> None:
        _check_same_elements(self, self.dest.type, self.value.type)


# ----------------------------------------------------------------------------- stage 2: virtual buffers
#
# A virtual buffer (vb) is a local-memory buffer with a readiness protocol, like a circular
# buffer: a producer brackets its write with reserve/commit, each value it commits is read by
# its consumers between one acquire and one release. `reserve` and `acquire` return the view to
# write or read; the payload is accessed by ordinary (linalg, loom.copy) ops on that view.


@irdl_op_definition
class VbCreateOp(IRDLOperation):
    """A virtual buffer (stage 2): storage and synchronisation still abstract."""

    name = "loom.vb.create"
    sizes = var_operand_def(IndexType)
    buffer = result_def(MemRefType)
    label = prop_def(StringAttr)
    assembly_format = "$label (`(` $sizes^ `)`)? attr-dict `:` type($buffer)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, label: str, sizes, buffer_type: MemRefType):
        super().__init__(operands=[list(sizes)], properties={"label": StringAttr(label)}, result_types=[buffer_type])
        self.buffer.name_hint = f"vb_{label}"


def _scan_block(op: IRDLOperation, forward: bool, closing: type, reopening: type) -> bool:
    """Is there, in op's block, a `closing` op on the same buffer before any `reopening` one?"""
    if op.parent_block() is None:
        return False
    other = op.next_op if forward else op.prev_op  # walked from op: a block's protocol ops are checked in O(n)
    while other is not None:
        if isinstance(other, (closing, reopening)) and other.operands[0] is op.operands[0]:
            return isinstance(other, closing)
        other = other.next_op if forward else other.prev_op
    return False


class _ProtocolOp(IRDLOperation):
    """Shared verification: each protocol op must be matched within its block."""

    PARTNER: ClassVar[tuple[str, bool, str]]  # (partner op, search forward?, the op that must not come first)

    def verify_(self) -> None:
        partner_name, forward, blocker_name = self.PARTNER
        partner, blocker = _OPS_BY_NAME[partner_name], _OPS_BY_NAME[blocker_name]
        if not _scan_block(self, forward, partner, blocker):
            owner_label = getattr(self.operands[0].owner, "label", None)
            label = owner_label.data if owner_label is not None else self.operands[0].name_hint
            where = "after" if forward else "before"
            raise VerifyException(
                f"{self.name} of buffer '{label}' has no matching {partner_name} {where} it in the same block"
            )


@irdl_op_definition
class VbReserveOp(_ProtocolOp):
    """Wait until the buffer can be written; returns the write view. Must be followed by `commit`."""

    name = "loom.vb.reserve"
    T: ClassVar = VarConstraint("T", base(MemRefType))
    buffer = operand_def(T)
    view = result_def(T)
    assembly_format = "$buffer attr-dict `:` type($buffer)"
    PARTNER: ClassVar[tuple[str, bool, str]] = ("loom.vb.commit", True, "loom.vb.reserve")

    def __init__(self, buffer):
        super().__init__(operands=[buffer], result_types=[buffer.type])


@irdl_op_definition
class VbCommitOp(_ProtocolOp):
    """Make the data written since `reserve` readable by consumers."""

    name = "loom.vb.commit"
    buffer = operand_def(MemRefType)
    assembly_format = "$buffer attr-dict `:` type($buffer)"
    PARTNER: ClassVar[tuple[str, bool, str]] = ("loom.vb.reserve", False, "loom.vb.commit")

    def __init__(self, buffer):
        super().__init__(operands=[buffer])


@irdl_op_definition
class VbAcquireOp(_ProtocolOp):
    """Wait until committed data is readable; returns the read view. Must be followed by `release`."""

    name = "loom.vb.acquire"
    T: ClassVar = VarConstraint("T", base(MemRefType))
    buffer = operand_def(T)
    view = result_def(T)
    assembly_format = "$buffer attr-dict `:` type($buffer)"
    PARTNER: ClassVar[tuple[str, bool, str]] = ("loom.vb.release", True, "loom.vb.acquire")

    def __init__(self, buffer):
        super().__init__(operands=[buffer], result_types=[buffer.type])


@irdl_op_definition
class VbReleaseOp(_ProtocolOp):
    """The consumers are done with the data acquired last; its storage may be written again."""

    name = "loom.vb.release"
    buffer = operand_def(MemRefType)
    assembly_format = "$buffer attr-dict `:` type($buffer)"
    PARTNER: ClassVar[tuple[str, bool, str]] = ("loom.vb.acquire", False, "loom.vb.release")

    def __init__(self, buffer):
        super().__init__(operands=[buffer])


@irdl_op_definition
class CopyOp(IRDLOperation):
    """An explicit data movement between memory spaces (DRAM→L1 loads, L1→DRAM stores).

    Stage 4 adds the transfer mode (unicast, row/column/2-D multicast, gather) and its region.
    """

    name = "loom.copy"
    source = operand_def(MemRefType)
    dest = operand_def(MemRefType)
    src_space = prop_def(StringAttr)
    dst_space = prop_def(StringAttr)
    assembly_format = "$source `,` $dest attr-dict `:` type($source) `,` type($dest)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, source, dest, src_space: str, dst_space: str):
        super().__init__(
            operands=[source, dest],
            properties={"src_space": StringAttr(src_space), "dst_space": StringAttr(dst_space)},
        )

    def verify_(self) -> None:
        spaces = {"DRAM", "L1"}
        for which in (self.src_space.data, self.dst_space.data):
            if which not in spaces:
                raise VerifyException(f"loom.copy: memory space must be one of {sorted(spaces)}, got {which!r}")
        if self.source.type.element_type != self.dest.type.element_type:
            raise VerifyException(
                f"loom.copy moves {self.source.type.element_type} into a buffer of {self.dest.type.element_type}"
            )


# ----------------------------------------------------------------------------- stage 3: concrete buffers


@irdl_op_definition
class MemAllocOp(IRDLOperation):
    """Local-memory storage shared by the virtual buffers bound to it (disjoint lifetimes)."""

    name = "loom.mem.alloc"
    sizes = var_operand_def(IndexType)
    memory = result_def(MemRefType)
    slot = prop_def(IntegerAttr)
    assembly_format = "`(` $sizes `)` attr-dict `:` type($memory)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, slot: int, sizes, memory_type: MemRefType):
        super().__init__(operands=[list(sizes)], properties={"slot": IntegerAttr(slot, i64)},
                         result_types=[memory_type])
        self.memory.name_hint = f"mem{slot}"


@irdl_op_definition
class SemAllocOp(IRDLOperation):
    """A counting semaphore: the readiness state of one virtual buffer."""

    name = "loom.sem.alloc"
    semaphore = result_def(IntegerType)
    assembly_format = "attr-dict `:` type($semaphore)"

    def __init__(self):
        super().__init__(result_types=[i32])


@irdl_op_definition
class VbBindOp(IRDLOperation):
    """A virtual buffer made concrete: storage from `loom.mem.alloc`, readiness from `loom.sem.alloc`."""

    name = "loom.vb.bind"
    memory = operand_def(MemRefType)
    semaphore = operand_def(IntegerType)
    buffer = result_def(MemRefType)
    label = prop_def(StringAttr)
    assembly_format = (
        "$label $memory `,` $semaphore attr-dict `:` type($memory) `,` type($semaphore) `->` type($buffer)"
    )
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, label: str, memory, semaphore):
        super().__init__(operands=[memory, semaphore], properties={"label": StringAttr(label)},
                         result_types=[memory.type])
        self.buffer.name_hint = f"vb_{label}"

    def verify_(self) -> None:
        if self.memory.type != self.buffer.type:
            raise VerifyException(
                f"loom.vb.bind @{self.label.data}: the buffer type {self.buffer.type} differs from "
                f"its storage {self.memory.type}"
            )


class _Activation(FloatingPointLikeUnaryMathOperation):
    """An activation Tensix computes as one vector-unit routine and MLIR's `math` dialect lacks:
    `%y = loom.sigmoid %x : f32` in the body of a `linalg.generic`."""

    traits = traits_def(Pure(), SameOperandsAndResultType())


@irdl_op_definition
class SigmoidOp(_Activation):
    """1 / (1 + exp(-x))."""

    name = "loom.sigmoid"


@irdl_op_definition
class GeluOp(_Activation):
    """x * Phi(x), Phi the standard normal CDF (`F.gelu(x)`)."""

    name = "loom.gelu"


@irdl_op_definition
class GeluTanhOp(_Activation):
    """GELU's tanh approximation (`F.gelu(x, approximate="tanh")`)."""

    name = "loom.gelu_tanh"


@irdl_op_definition
class SignOp(_Activation):
    """-1, 0 or 1 by the sign of x (`torch.sign`)."""

    name = "loom.sign"


def _defined(name: str, base: type, doc: str) -> type:
    """An op class `loom.<name>` of one of the bases above, with its docstring."""
    return irdl_op_definition(type(name.title().replace("_", "") + "Op", (base,),
                                   {"name": f"loom.{name}", "__doc__": doc, "__module__": __name__}))


ROUNDINGS = {n: _defined(n, _Activation, f"x rounded {how} (`torch.{n}`).") for n, how in (
    ("floor", "down"), ("ceil", "up"), ("trunc", "toward zero"), ("round", "to the nearest, ties to even"))}
"""`loom.floor` …: the vector unit's rounding routines (MLIR's `math` lacks a float round-half-even)."""
FP8_ROUNDINGS = {n: _defined(f"round_{n}", _Activation, f"x rounded to the nearest `torch.{n}` value, kept in x's "
                               "format (a cast to a type the device holds wider: `tiles.HELD_AS`).")
                 for n in ("float8_e4m3fn", "float8_e5m2")}
"""`loom.round_float8_e4m3fn` …: a cast inside the loop to an fp8 type, whose values every wider float format
holds exactly."""


class _Elementwise2(arith.FloatingPointLikeBinaryOperation):
    """A two-operand body op of a `linalg.generic` that MLIR's `arith` has no float-valued form of."""


COMPARES = {p: _defined(f"cmp_{p}", _Elementwise2, f"1.0 where `lhs {sym} rhs`, else 0.0 (torch's bool, in floats).")
            for p, sym in (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<="), ("eq", "=="), ("ne", "!="))}
"""`loom.cmp_gt` … : comparisons of two tiles (or a tile and a number) whose result is 0.0 / 1.0."""
SelectOp = _defined("select", _Elementwise2, "`rhs` where `lhs` (a 0 / 1 condition) is nonzero, else 0.0.")
SelectNotOp = _defined("select_not", _Elementwise2, "`rhs` where `lhs` (a 0 / 1 condition) is zero, else 0.0.")


@irdl_op_definition
class PositionMaskOp(IRDLOperation):
    """The body op of a position mask's `linalg.generic`: a tail's padding (Helion's `_mask_to` where a
    dimension has a tail) or a mask the kernel builds from `tile.index` (causal attention's
    `torch.where(q_idx >= k_idx, s, -inf)`):
    `%y = loom.position_mask %x [%off0, %off1] {keep = [[1, -1, 0]], fill = -inf}`.

    An element at position p (p_d = the offset of dimension d plus the element's index in the
    generic's iteration space, its position in the kernel's tensor) keeps `x` where every row
    `[a_0, …, a_{n-1}, c]` of `keep` holds: a_0 p_0 + … + a_{n-1} p_{n-1} + c >= 0; elsewhere it is
    `fill`. A tail of real extent L in dimension d is the row -p_d + L - 1 >= 0; its fill is the
    identity of the reduction that follows (0 for a sum, -inf for a max). The offsets are index values
    of the enclosing block (`tile_idx * tile`), one per iteration dimension, captured from above.

    A position compared with data (`tile_v.index[None, :] == label[:, None]`) takes the element's value
    of a second tensor, `bound`: each row then ends with its coefficient, a·p + c + e·bound >= 0
    (`keep = [[0, 1, 0, -1], [0, -1, 0, 1]]` keeps the column equal to the row's label)."""

    name = "loom.position_mask"
    input = operand_def(AnyFloat)
    offsets = var_operand_def(IndexType)
    bound = opt_operand_def(AnyFloat)
    keep = prop_def(ArrayAttr[ArrayAttr[IntegerAttr]])
    fill = prop_def(FloatAttr)
    result = result_def(AnyFloat)
    traits = traits_def(Pure())
    assembly_format = ("$input `[` $offsets `]` (`bound` $bound^ `:` type($bound))? attr-dict `:` type($input) "
                       "`->` type($result)")
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))

    def __init__(self, value, offsets, keep: list[list[int]], fill: float, bound=None):
        rows = ArrayAttr([ArrayAttr([IntegerAttr(n, i64) for n in row]) for row in keep])
        props = {"keep": rows, "fill": FloatAttr(fill, value.type)}
        super().__init__(operands=[value, list(offsets), [bound] if bound is not None else []], properties=props,
                         result_types=[value.type])

    def half_planes(self) -> list[list[int]]:
        """The rows of `keep`, as integers."""
        return [[n.value.data for n in row.data] for row in self.keep.data]

    def verify_(self) -> None:
        width = len(self.offsets) + 1 + (self.bound is not None)
        for row in self.keep.data:
            if len(row.data) != width:
                raise VerifyException(f"loom.position_mask: expected rows of one coefficient per offset, a constant "
                                      f"and one for the bound if any ({width}), found {len(row.data)}")


LOOM_OPS = [SymOp, ReadOp, WriteOp, VbCreateOp, VbReserveOp, VbCommitOp, VbAcquireOp, VbReleaseOp, CopyOp,
            MemAllocOp, SemAllocOp, VbBindOp, SigmoidOp, GeluOp, GeluTanhOp, PositionMaskOp, *COMPARES.values(),
            SelectOp, SelectNotOp, SignOp, *ROUNDINGS.values(), *FP8_ROUNDINGS.values()]
_OPS_BY_NAME = {op.name: op for op in LOOM_OPS}
Loom = Dialect("loom", LOOM_OPS, [])


def _install_mixed_precision_matmul_body() -> None:
    """Give `linalg.matmul` MLIR's implicit body for mixed precision.

    MLIR's named matmul casts both inputs to the accumulator type before the
    multiply-add (bf16 × bf16 accumulated in f32). xDSL 0.74 builds the body
    without those casts, so a mixed-precision matmul fails to verify, both when
    built and when parsed back. We install the MLIR body on xDSL's op class.
    """
    from xdsl.builder import Builder
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import AnyFloat
    from xdsl.dialects.linalg.ops import MatmulOp, YieldOp

    def get_hidden_region(cls, inputs, outputs):
        arg_types = cls.body_arg_types((*inputs, *outputs))
        acc_type = arg_types[-1]

        @Builder.implicit_region(arg_types)
        def hidden_region(args) -> None:
            lhs, rhs = args[0], args[1]
            if isinstance(acc_type, AnyFloat):
                if lhs.type != acc_type:
                    lhs = arith.ExtFOp(lhs, acc_type).result
                if rhs.type != acc_type:
                    rhs = arith.ExtFOp(rhs, acc_type).result
                YieldOp(arith.AddfOp(arith.MulfOp(lhs, rhs), args[2]))
            else:
                YieldOp(arith.AddiOp(arith.MuliOp(lhs, rhs), args[2]))

        return hidden_region

    MatmulOp.get_hidden_region = classmethod(get_hidden_region)


_install_mixed_precision_matmul_body()
