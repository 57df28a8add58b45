"""The `loom` dialect: symbolic values and (later stages) buffers, copies, semaphores.

`loom.sym @label {upper_bound = N}` introduces a compile-time unknown: the SSA
result is what IR uses wherever an index is expected, the label is the source
name (`tile_m`) that the solver and the reports use.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    SymbolNameConstraint,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class SymOp(IRDLOperation):
    """A named compile-time unknown: `%t = loom.sym @tile_m {upper_bound = 2048 : i64} : index`."""

    name = "loom.sym"
    sym_name = prop_def(SymbolNameConstraint())
    upper_bound = prop_def(IntegerAttr)
    reduction = opt_prop_def(UnitAttr)
    res = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "$sym_name attr-dict `:` type($res)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, label: str, upper_bound: int, reduction: bool = False):
        props: dict = {"sym_name": StringAttr(label), "upper_bound": IntegerAttr(upper_bound, i64)}
        if reduction:
            props["reduction"] = UnitAttr()
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


LOOM_OPS = [SymOp, ReadOp, WriteOp]
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
