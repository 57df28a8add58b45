"""A table of the buffers of a concretized program: what a compiler engineer reads when L1 runs out."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import affine, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg.ops import GenericOp, IteratorType
from xdsl.ir import Operation, SSAValue

from loom.ir.dialect import CopyOp, VbAcquireOp, VbBindOp, VbCreateOp, VbReserveOp
from loom.ir.types import symbolic_dims
from loom.passes.buffer_protocol import interpret


@dataclass(frozen=True)
class BufferRow:
    label: str
    shape: str  # in source symbols: "tile_m x tile_k bf16"
    producers: tuple[str, ...]
    consumers: tuple[str, ...]
    lifetime: str
    slot: str
    shares_with: tuple[str, ...]


def describe(op: Operation) -> str:
    """`matmul@matmul.py:19`, `load x@matmul.py:19`, `exp@flash_attention.py:29`."""
    if isinstance(op, CopyOp):
        if op.src_space.data == "DRAM":
            what = f"load {_global_name(op.source)}"
        else:
            what = f"store {_global_name(op.dest)}"
    elif isinstance(op, GenericOp):
        body = [o.name.split(".")[-1].removesuffix("f") for o in op.body.block.ops if o.name != "linalg.yield"]
        body = [b for b in body if b not in ("ext", "trunc")] or ["convert"]
        reduce = any(t.data == IteratorType.REDUCTION for t in op.iterator_types)
        what = f"reduce_{body[0]}" if reduce else "+".join(body)
    else:
        what = op.name.split(".")[-1]
    loc = op.attributes.get("loom.loc")
    return f"{what}@{loc.data}" if loc is not None else what


def _global_name(view: SSAValue) -> str:
    owner = view.owner
    return owner.source.name_hint if isinstance(owner, memref.SubviewOp) else "?"


def _loop_name(loop: scf.ForOp) -> str:
    return loop.body.block.args[0].name_hint or "loop"


def buffer_summary(module: ModuleOp) -> list[BufferRow]:
    rows = []
    for grid in [g for g in module.walk() if isinstance(g, affine.ParallelOp)]:
        trace = interpret(grid)
        binds = [op for op in grid.walk() if isinstance(op, (VbBindOp, VbCreateOp))]
        for bind in binds:
            buffer = bind.buffer
            producers, consumers, places = [], [], set()
            for use in buffer.uses:
                protocol = use.operation
                places.add(protocol.parent_op())
                if isinstance(protocol, (VbReserveOp, VbAcquireOp)):
                    for view_use in protocol.view.uses:
                        places.add(view_use.operation.parent_op())
                        target = producers if isinstance(protocol, VbReserveOp) else consumers
                        if isinstance(protocol, VbReserveOp) and _reads_destination(view_use.operation):
                            consumers.append(describe(view_use.operation))
                        target.append(describe(view_use.operation))
            loops = sorted({_loop_name(p) for p in places if isinstance(p, scf.ForOp)})
            outside = any(not isinstance(p, scf.ForOp) for p in places)
            scope = ("across loop " if outside else "within loop ") + ", ".join(loops) if loops else "outside loops"
            steps = sorted(trace.live_steps.get(buffer, ()))
            lifetime = f"{scope}; live steps {steps[0]}-{steps[-1]}" if steps else scope
            if isinstance(bind, VbBindOp):
                memory = bind.memory
                slot = f"mem{memory.owner.slot.value.data}"
                sharing = tuple(b.label.data for b in binds if isinstance(b, VbBindOp)
                                and b is not bind and b.memory is memory)
            else:
                slot, sharing = "-", ()
            dims = symbolic_dims(list(bind.sizes) if isinstance(bind, VbCreateOp) else list(bind.memory.owner.sizes),
                         buffer.type.get_shape())
            shape = " x ".join(str(d) for d in dims) + f" {buffer.type.element_type}"
            rows.append(BufferRow(bind.label.data, shape, tuple(dict.fromkeys(producers)),
                                  tuple(dict.fromkeys(consumers)), lifetime, slot, sharing))
    return rows


def _reads_destination(op: Operation) -> bool:
    """An op that reads its destination (accumulating matmul, in-place update)."""
    return op.name == "linalg.matmul"


