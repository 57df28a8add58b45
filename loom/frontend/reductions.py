"""Which device loops may be split across cores, and how their partial results combine.

A device loop directly in the tile body that carries values (`scf.for ... iter_args`) is a
reduction over its index. Its iterations may run on several cores, each producing a partial
state, when the carried values combine associatively and each core can start from the same
initial value:

- **sum**: `x' = x + f(...)` (an accumulating `linalg.matmul` into `x`, or an elementwise add),
  `f` independent of every carried value, `x` initialised to 0. Partials add up.
- **lse** (log-sum-exp, the online softmax): one carried running max `m' = max(m, f(...))`
  initialised to -inf, and every other carried value rescaled, `x' = x * alpha + g(...)` with
  `alpha = exp(m - m')` and `g` linear in `exp(s - m')` (the only use of the new max in `g`),
  initialised to 0. Partials combine as `M = max_j m_j`, `x = sum_j x_j * exp(m_j - M)`.
- **max**: only running maxima. Partials combine by `max`.

The loop gets `loom.combine` (the scheme) and `loom.carried_roles` (per carried value: sum, max,
rescaled), or `loom.combine_refused` saying why its iterations must stay on one core.
"""

from __future__ import annotations

import math

from xdsl.dialects import affine, scf
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.dialects.linalg.ops import CopyOp as LinalgCopyOp
from xdsl.dialects.linalg.ops import FillOp, GenericOp, IteratorType, MatmulOp, TransposeOp
from xdsl.ir import BlockArgument, Operation, SSAValue

IDENTITY = {"sum": 0.0, "rescaled": 0.0, "max": -math.inf}


class Refused(Exception):
    """The loop's carried values do not combine; the message says which and why."""


def annotate_reductions(module: ModuleOp) -> None:
    """Mark every value-carrying device loop of the tile body with its combine scheme (or refusal)."""
    for grid in [op for op in module.walk() if isinstance(op, affine.ParallelOp)]:
        for op in grid.body.block.ops:
            if isinstance(op, scf.ForOp) and op.iter_args and "loom.until" in op.attributes:
                until = op.attributes["loom.until"].data
                bound = f"start at `{until}.begin`" if "loom.from_start" in op.attributes else f"end at `{until}.end`"
                op.attributes["loom.combine_refused"] = StringAttr(
                    f"its trips {bound}: they differ from one `{until}` block to the next")
            elif isinstance(op, scf.ForOp) and op.iter_args:
                try:
                    scheme, roles = classify_loop(op)
                except Refused as why:
                    op.attributes["loom.combine_refused"] = StringAttr(str(why))
                    continue
                op.attributes["loom.combine"] = StringAttr(scheme)
                op.attributes["loom.carried_roles"] = ArrayAttr([StringAttr(r) for r in roles])


def classify_loop(loop: scf.ForOp) -> tuple[str, list[str]]:
    body = loop.body.block
    carried = list(body.args[1:])
    yielded = list(body.last_op.operands)
    names = [a.name_hint or f"#{i}" for i, a in enumerate(carried)]
    roles: dict[int, str] = {}
    for i, (arg, new) in enumerate(zip(carried, yielded)):  # running maxima first: the others refer to them
        if _running_max(arg, new, carried):
            roles[i] = "max"
    maxima = [(carried[i], yielded[i]) for i in roles]
    for i, (arg, new) in enumerate(zip(carried, yielded)):
        if i in roles:
            continue
        if _accumulates(arg, new, carried, scale=None):
            roles[i] = "sum"
        elif len(maxima) == 1 and _accumulates(arg, new, carried, scale=maxima[0]):
            roles[i] = "rescaled"
        else:
            raise Refused(f"carried value '{names[i]}' is not updated as x + f(...), max(x, f(...)) or "
                          "x * exp(m - m') + g(...) with f, g independent of the carried values")
    for i, init in enumerate(loop.iter_args):
        value = _fill_value(init)
        if value is None or value != IDENTITY[roles[i]]:
            found = "not a constant fill" if value is None else f"{value}"
            raise Refused(f"carried value '{names[i]}' starts at {found}; splitting its loop needs the "
                          f"identity of its combine ({IDENTITY[roles[i]]})")
    ordered = [roles[i] for i in range(len(carried))]
    scheme = "lse" if "rescaled" in ordered else ("max" if set(ordered) == {"max"} else "sum")
    if scheme == "sum" and "max" in ordered:
        raise Refused("a loop carrying both sums and maxima without rescaling has no single combine")
    return scheme, ordered


def _fill_value(value: SSAValue) -> float | None:
    op = value.owner
    if isinstance(op, FillOp):
        const = op.inputs[0].owner
        attr = getattr(const, "value", None)
        return float(attr.value.data) if attr is not None and hasattr(attr, "value") else None
    return None


def _body_ops(op: Operation) -> list[str]:
    return [o.name for o in op.body.block.ops if o.name != "linalg.yield"]


def _single(op: Operation, name: str) -> bool:
    """An elementwise generic whose body is one `name` op on its two inputs."""
    return (isinstance(op, GenericOp) and _body_ops(op) == [name] and len(op.inputs) == 2
            and all(t.data == IteratorType.PARALLEL for t in op.iterator_types))


def depends_on(value: SSAValue, targets: list[SSAValue], seen: set | None = None) -> bool:
    """Whether `value` is computed (in this loop body) from any of `targets`."""
    seen = set() if seen is None else seen
    if value in targets:
        return True
    if value in seen or isinstance(value, BlockArgument):
        return False
    seen.add(value)
    op = value.owner
    return any(depends_on(operand, targets, seen) for operand in op.operands)


def _running_max(arg: SSAValue, new: SSAValue, carried: list[SSAValue]) -> bool:
    op = new.owner
    if not _single(op, "arith.maximumf") or arg not in op.inputs:
        return False
    other = [v for v in op.inputs if v is not arg]
    return len(other) == 1 and not depends_on(other[0], carried)


def _accumulates(arg, new, carried, scale) -> bool:
    """`new = base + increment` where base is `arg` (sums) or `arg * exp(m - m')` (rescaled)."""
    op = new.owner
    if isinstance(op, MatmulOp):
        base, increments = op.outputs[0], list(op.inputs)
    elif _single(op, "arith.addf"):
        first, second = op.inputs
        base, increments = (first, [second]) if _is_base(first, arg, scale) else (second, [first])
    else:
        return False
    if not _is_base(base, arg, scale):
        return False
    if scale is None:
        return not any(depends_on(v, carried) for v in increments)
    return _linear_in_exp(op if isinstance(op, MatmulOp) else increments[0], carried, scale)


def _is_base(value: SSAValue, arg: SSAValue, scale) -> bool:
    if scale is None:
        return value is arg
    op = value.owner
    if not _single(op, "arith.mulf") or arg not in op.inputs:
        return False
    (alpha,) = [v for v in op.inputs if v is not arg] or [None]
    return alpha is not None and _is_alpha(alpha, scale)


def _is_alpha(value: SSAValue, scale) -> bool:
    """alpha = exp(m - m') for the running max (m, m')."""
    m, m_new = scale
    exp = value.owner
    if not (isinstance(exp, GenericOp) and _body_ops(exp) == ["math.exp"]):
        return False
    sub = exp.inputs[0].owner
    return _single(sub, "arith.subf") and list(sub.inputs) == [m, m_new]


def _linear_in_exp(node, carried, scale) -> bool:
    """The increment of a rescaled value: built linearly from `exp(s - m')` and values independent
    of the carried ones (the new max may appear only inside that exponential)."""
    m_new = scale[1]

    def free(v: SSAValue) -> bool:
        return not depends_on(v, carried) and not depends_on(v, [m_new])

    def linear(v: SSAValue) -> bool:
        op = v.owner if isinstance(v, SSAValue) else v
        if isinstance(v, SSAValue) and free(v):
            return False  # independent of m': a constant term, which would not rescale
        if isinstance(op, GenericOp) and _body_ops(op) == ["math.exp"]:
            sub = op.inputs[0].owner
            return _single(sub, "arith.subf") and sub.inputs[1] is m_new and free(sub.inputs[0])
        if isinstance(op, MatmulOp):
            if op is not node and _fill_value(op.outputs[0]) != 0.0:
                return False  # an inner matmul must start from zero (the outer one accumulates the base)
            a, b = op.inputs
            return (linear(a) and free(b)) or (linear(b) and free(a))
        if isinstance(op, (LinalgCopyOp, TransposeOp)):
            return linear(op.inputs[0])
        if isinstance(op, GenericOp):
            names = _body_ops(op)
            reduce = any(t.data == IteratorType.REDUCTION for t in op.iterator_types)
            if reduce:
                return names == ["arith.addf"] and _fill_value(op.outputs[0]) == 0.0 and linear(op.inputs[0])
            if names in (["arith.truncf"], ["arith.extf"]):
                return linear(op.inputs[0])
            if names == ["arith.mulf"]:
                if len(op.inputs) == 1:  # scaled by a constant
                    return linear(op.inputs[0])
                a, b = op.inputs
                return (linear(a) and free(b)) or (linear(b) and free(a))
            if names == ["arith.addf"] and len(op.inputs) == 2:
                return all(linear(x) for x in op.inputs)
        return False

    return linear(node)
