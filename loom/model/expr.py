"""Integer expression trees: the one source of truth for latencies and legality constraints.

Stage 5 writes a candidate's latency (cycles) and its resource terms (bytes) as
immutable trees over block sizes (`Var`, integers with a finite domain given
by the `Problem`) and pipeline knobs (`Knob`, 0/1). The same tree is
evaluated exactly for a concrete schedule (`evaluate`, used by reports and
by the tests) and lowered to CP-SAT (`loom.solve.cpsat`), so the model the
solver optimises and the number a report prints cannot drift apart.

Two ways to build a tree:
- the node classes themselves (`Add((a, b))`, ...) build exactly the node
  asked for; ints are wrapped in `Const`, nothing is simplified;
- the helpers (`add`, `mul`, `ceil_div`, `floor_div`, `maximum`, `minimum`,
  `select`, `rate`) and the operators `+ - * //` simplify lightly and
  deterministically: constants fold, unlabelled nested Add/Mul/Max/Min
  flatten into their parent, `+0` and `*1` vanish, a one-item Add/Mul/Max/Min
  is its item, duplicate Max/Min items are dropped (first occurrence kept);
  inside `sharing(table)` they return the node they built before for the same
  operands and label (`loom.model.sharing`).

Every node may carry a `label` ("DRAM load of x"). Labels are annotations,
not semantics: they take no part in `==` or `hash` (so identical subtrees
share one solver variable), and a labelled node is never flattened into its
parent, so a labelled term survives as one child of the root Add/Max for
`terms`/`breakdown` to report. A label on a node that simplification folds
away (e.g. a constant) is lost.

All arithmetic is exact integer arithmetic; divisions need a positive
denominator and round as named (`CeilDiv` up, `FloorDiv` down, `Rate` up).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from loom.model.sharing import LEAVES, shared, sharing

__all__ = [
    "Add", "CeilDiv", "Const", "Expr", "FloorDiv", "Knob", "Max", "Min", "Mul", "Rate", "Select", "Var",
    "add", "as_expr", "breakdown", "ceil_div", "children", "describe", "evaluate", "floor_div",
    "free_names", "maximum", "minimum", "mul", "names_below", "pretty", "rate", "select", "sharing", "terms", "walk",
    "with_label",
]


# Nodes: frozen dataclasses; structural __eq__/__hash__ and a compact __repr__ come from Expr.
_node = dataclass(frozen=True, eq=False, repr=False)
_FIELDS: dict[type, tuple[str, ...]] = {}  # node class -> its fields but the label, in order


@_node
class Expr:
    """Base class of every node. Equality and hash are structural and ignore labels."""

    label: str | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        self._check()
        names = _FIELDS.get(type(self))
        if names is None:  # dataclasses.fields costs more than the rest of a node's construction
            names = _FIELDS[type(self)] = tuple(f.name for f in dataclasses.fields(self) if f.name != "label")
        key = tuple(getattr(self, n) for n in names)
        object.__setattr__(self, "_key", key)
        # Cached so that hashing a deep (or DAG-shared) tree costs O(1) per node.
        object.__setattr__(self, "_hash", hash((type(self).__name__, key)))

    def _check(self) -> None:
        pass

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(self) is not type(other):
            return NotImplemented if not isinstance(other, Expr) else False
        return self._hash == other._hash and self._key == other._key  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined]

    def __reduce__(self):
        # Rebuild through __init__ so the cached hash is recomputed in the receiving
        # process (str hashes differ between processes).
        return (_rebuild, (type(self), self._key, self.label))  # type: ignore[attr-defined]

    def __str__(self) -> str:
        return pretty(self)

    def __repr__(self) -> str:
        args = [repr(v) for v in self._key]  # type: ignore[attr-defined]
        if self.label is not None:
            args.append(f"label={self.label!r}")
        return f"{type(self).__name__}({', '.join(args)})"

    def __add__(self, other: Expr | int) -> Expr:
        return add(self, other)

    def __radd__(self, other: Expr | int) -> Expr:
        return add(other, self)

    def __sub__(self, other: Expr | int) -> Expr:
        return add(self, mul(-1, other))

    def __rsub__(self, other: Expr | int) -> Expr:
        return add(other, mul(-1, self))

    def __neg__(self) -> Expr:
        return mul(-1, self)

    def __mul__(self, other: Expr | int) -> Expr:
        return mul(self, other)

    def __rmul__(self, other: Expr | int) -> Expr:
        return mul(other, self)

    def __floordiv__(self, other: Expr | int) -> Expr:
        return floor_div(self, other)

    def __rfloordiv__(self, other: Expr | int) -> Expr:
        return floor_div(other, self)


def _rebuild(cls: type, key: tuple, label: str | None) -> Expr:
    return cls(*key, label=label)


def as_expr(x: Expr | int) -> Expr:
    """An `Expr` as is, an int as `Const`; anything else (float, Fraction) is a TypeError."""
    if isinstance(x, Expr):
        return x
    if isinstance(x, int):
        return Const(int(x))
    raise TypeError(f"expected an Expr or an int, got {type(x).__name__} {x!r}")


def _set(node: Expr, name: str, value: object) -> None:
    object.__setattr__(node, name, value)


@_node
class Const(Expr):
    value: int

    def _check(self) -> None:
        if not isinstance(self.value, int):
            raise TypeError(f"Const takes an int, got {type(self.value).__name__} {self.value!r}")
        _set(self, "value", int(self.value))  # bool -> int


@_node
class Var(Expr):
    """An integer decision variable (a block size); its domain lives in the Problem."""

    name: str


@_node
class Knob(Expr):
    """A 0/1 decision (a pipeline overlap knob)."""

    name: str


LEAVES.update({Const: "value", Var: "name", Knob: "name"})  # keyed by value in a `sharing` table


class _Nary(Expr):
    _field = ""

    def _check(self) -> None:
        given = getattr(self, self._field)
        items = given if type(given) is tuple and all(isinstance(x, Expr) for x in given) else \
            tuple(as_expr(x) for x in given)
        if not items:
            raise ValueError(f"{type(self).__name__} needs at least one operand")
        _set(self, self._field, items)

    @property
    def args(self) -> tuple[Expr, ...]:
        return getattr(self, self._field)


@_node
class Add(_Nary):
    terms: tuple[Expr, ...]
    _field = "terms"


@_node
class Mul(_Nary):
    factors: tuple[Expr, ...]
    _field = "factors"


@_node
class Max(_Nary):
    items: tuple[Expr, ...]
    _field = "items"


@_node
class Min(_Nary):
    items: tuple[Expr, ...]
    _field = "items"


class _Div(Expr):
    def _check(self) -> None:
        _set(self, "num", as_expr(self.num))  # type: ignore[attr-defined]
        _set(self, "den", as_expr(self.den))  # type: ignore[attr-defined]


@_node
class CeilDiv(_Div):
    """ceil(num / den); den must be positive."""

    num: Expr
    den: Expr


@_node
class FloorDiv(_Div):
    """floor(num / den); den must be positive."""

    num: Expr
    den: Expr


@_node
class Select(Expr):
    """`if_true` when the knob is 1, else `if_false`."""

    cond: Knob
    if_true: Expr
    if_false: Expr

    def _check(self) -> None:
        if isinstance(self.cond, str):
            _set(self, "cond", Knob(self.cond))
        if not isinstance(self.cond, Knob):
            raise TypeError(f"Select's condition must be a Knob, got {self.cond!r}")
        _set(self, "if_true", as_expr(self.if_true))
        _set(self, "if_false", as_expr(self.if_false))


@_node
class Rate(Expr):
    """Cycles to move `amount` units at per_cycle_num/per_cycle_den units per cycle, rounded up:
    ceil(amount * per_cycle_den / per_cycle_num)."""

    amount: Expr
    per_cycle_num: int
    per_cycle_den: int

    def _check(self) -> None:
        _set(self, "amount", as_expr(self.amount))
        for v in (self.per_cycle_num, self.per_cycle_den):
            if not isinstance(v, int) or v <= 0:
                raise ValueError(f"Rate's throughput must be a positive fraction of ints, got {v!r}")

    @property
    def throughput(self) -> Fraction:
        return Fraction(self.per_cycle_num, self.per_cycle_den)


# ---------------------------------------------------------------------------
# Simplifying constructors


def with_label(e: Expr, label: str | None) -> Expr:
    """The same node with a label (labels do not change equality)."""
    return e if label is None or e.label == label else dataclasses.replace(e, label=label)


def _flatten(cls: type, xs: tuple) -> list[Expr]:
    out: list[Expr] = []
    for x in xs:
        x = as_expr(x)
        if type(x) is cls and x.label is None:
            out.extend(x.args)  # type: ignore[attr-defined]
        else:
            out.append(x)
    return out


@shared
def add(*xs: Expr | int, label: str | None = None) -> Expr:
    """Sum; constants fold into one trailing constant, zeros vanish."""
    items = _flatten(Add, xs)
    const = sum(x.value for x in items if isinstance(x, Const))
    rest = [x for x in items if not isinstance(x, Const)]
    if const != 0 or not rest:
        rest.append(Const(const))
    return with_label(rest[0] if len(rest) == 1 else Add(tuple(rest)), label)


@shared
def mul(*xs: Expr | int, label: str | None = None) -> Expr:
    """Product; constants fold into one leading constant, ones vanish, a zero factor gives 0."""
    items = _flatten(Mul, xs)
    const = 1
    for x in items:
        if isinstance(x, Const):
            const *= x.value
    rest = [x for x in items if not isinstance(x, Const)]
    if const == 0:
        rest = []
    if const != 1 or not rest:
        rest.insert(0, Const(const))
    return with_label(rest[0] if len(rest) == 1 else Mul(tuple(rest)), label)


def _extremum(cls: type, pick, xs: tuple, label: str | None) -> Expr:
    items = _flatten(cls, xs)
    if not items:
        raise ValueError(f"{cls.__name__.lower()} of nothing")
    consts = [x.value for x in items if isinstance(x, Const)]
    rest = list(dict.fromkeys(x for x in items if not isinstance(x, Const)))  # ordered dedupe
    if consts:
        rest.append(Const(pick(consts)))
    return with_label(rest[0] if len(rest) == 1 else cls(tuple(rest)), label)


@shared
def maximum(*xs: Expr | int, label: str | None = None) -> Expr:
    return _extremum(Max, max, xs, label)


@shared
def minimum(*xs: Expr | int, label: str | None = None) -> Expr:
    return _extremum(Min, min, xs, label)


def _div(cls: type, a: Expr | int, b: Expr | int, label: str | None) -> Expr:
    num, den = as_expr(a), as_expr(b)
    if isinstance(den, Const):
        if den.value <= 0:
            raise ValueError(f"{cls.__name__} by a non-positive constant {den.value}")
        if den.value == 1:
            return with_label(num, label)
        if isinstance(num, Const):
            return with_label(Const(apply_div(cls, num.value, den.value)), label)
    elif num == Const(0):
        return with_label(num, label)
    return with_label(cls(num, den), label)


@shared
def ceil_div(a: Expr | int, b: Expr | int, *, label: str | None = None) -> Expr:
    return _div(CeilDiv, a, b, label)


@shared
def floor_div(a: Expr | int, b: Expr | int, *, label: str | None = None) -> Expr:
    return _div(FloorDiv, a, b, label)


@shared
def select(knob: Knob | str, if_true: Expr | int, if_false: Expr | int, *, label: str | None = None) -> Expr:
    t, f = as_expr(if_true), as_expr(if_false)
    if t == f:
        return with_label(t, label)
    return Select(Knob(knob) if isinstance(knob, str) else knob, t, f, label=label)


@shared
def rate(amount: Expr | int, throughput: Fraction | float | int, *, label: str | None = None) -> Expr:
    """Cycles to move `amount` at `throughput` units per cycle, rounded up.

    A float throughput (22.5 B/cycle) becomes `Fraction(x).limit_denominator(1000)` (45/2)."""
    num, den = _throughput(throughput)
    amount = as_expr(amount)
    if num == den:
        return with_label(amount, label)
    if isinstance(amount, Const):
        return with_label(Const(ceil_int(amount.value * den, num)), label)
    return Rate(amount, num, den, label=label)


@functools.lru_cache(maxsize=4096)
def _throughput(throughput: Fraction | float | int) -> tuple[int, int]:
    """(numerator, denominator) of a positive throughput; a float's with denominator at most 1000. The
    models of a kernel's candidates ask for the same few rates thousands of times."""
    tp = Fraction(throughput).limit_denominator(1000) if isinstance(throughput, float) else Fraction(throughput)
    if tp <= 0:
        raise ValueError(f"throughput must be positive, got {throughput!r}")
    return tp.numerator, tp.denominator


# ---------------------------------------------------------------------------
# Inspection


def children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, _Nary):
        return e.args
    if isinstance(e, _Div):
        return (e.num, e.den)  # type: ignore[attr-defined]
    if isinstance(e, Select):
        return (e.cond, e.if_true, e.if_false)
    if isinstance(e, Rate):
        return (e.amount,)
    return ()


def walk(e: Expr) -> Iterator[Expr]:
    """Every distinct node once, parents before children, in a deterministic order."""
    seen: set[int] = set()
    stack = [e]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(reversed(children(node)))


def free_names(e: Expr) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(variable names, knob names), each sorted."""
    vs, ks = names_below(e)
    return tuple(sorted(vs)), tuple(sorted(ks))


def names_below(e: Expr) -> tuple[frozenset[str], frozenset[str]]:
    """(variable names, knob names) under `e`, kept on each node the first time it is asked: the models of
    a kernel's candidates share most of their nodes (`loom.model.sharing`), each then visited once."""
    stack = [e]
    while stack:  # post-order, without recursion: a node's names once its children's are known
        node = stack[-1]
        if hasattr(node, "_names"):
            stack.pop()
            continue
        pending = [c for c in children(node) if not hasattr(c, "_names")]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        if isinstance(node, Var):
            got = (frozenset((node.name,)), frozenset())
        elif isinstance(node, Knob):
            got = (frozenset(), frozenset((node.name,)))
        else:
            below = [c._names for c in children(node)]  # type: ignore[attr-defined]
            got = (frozenset().union(*(b[0] for b in below)), frozenset().union(*(b[1] for b in below)))
        object.__setattr__(node, "_names", got)
    return e._names  # type: ignore[attr-defined]


def terms(e: Expr) -> tuple[Expr, ...]:
    """The children of a root Add or Max (the candidates for "dominant term"); else (e,)."""
    return e.args if isinstance(e, (Add, Max)) else (e,)


def describe(e: Expr) -> str:
    """A node's label, or its pretty-printed form."""
    return e.label if e.label is not None else pretty(e)


def breakdown(e: Expr, env: Mapping[str, int]) -> list[tuple[str, int]]:
    """(description, value) of each of `terms(e)` under `env`, in tree order."""
    return [(describe(t), evaluate(t, env)) for t in terms(e)]


# ---------------------------------------------------------------------------
# Exact evaluation (interval bounds: `loom.model.intervals`)


def ceil_int(a: int, b: int) -> int:
    """ceil(a / b) for b > 0 (ints, or numpy arrays alike: `loom.solve.bound`)."""
    return -((-a) // b)


def apply_div(cls: type, a: int, b: int) -> int:
    return ceil_int(a, b) if cls is CeilDiv else a // b


def evaluate(e: Expr, env: Mapping[str, int]) -> int:
    """The exact integer value of `e` with every Var and Knob taken from `env` (knobs 0 or 1)."""
    memo: dict[int, int] = {}

    def ev(n: Expr) -> int:
        got = memo.get(id(n))
        if got is not None:
            return got
        if isinstance(n, Const):
            v = n.value
        elif isinstance(n, (Var, Knob)):
            if n.name not in env:
                raise KeyError(f"no value for {type(n).__name__.lower()} '{n.name}'")
            v = int(env[n.name])
            if isinstance(n, Knob) and v not in (0, 1):
                raise ValueError(f"knob '{n.name}' must be 0 or 1, got {v}")
        elif isinstance(n, Add):
            v = sum(ev(t) for t in n.terms)
        elif isinstance(n, Mul):
            v = 1
            for f in n.factors:
                v *= ev(f)
        elif isinstance(n, Max):
            v = max(ev(t) for t in n.items)
        elif isinstance(n, Min):
            v = min(ev(t) for t in n.items)
        elif isinstance(n, (CeilDiv, FloorDiv)):
            a, b = ev(n.num), ev(n.den)
            if b <= 0:
                raise ZeroDivisionError(f"denominator of {pretty(n)} is {b}, must be positive")
            v = apply_div(type(n), a, b)
        elif isinstance(n, Select):
            v = ev(n.if_true) if ev(n.cond) else ev(n.if_false)
        elif isinstance(n, Rate):
            v = ceil_int(ev(n.amount) * n.per_cycle_den, n.per_cycle_num)
        else:
            raise TypeError(f"unknown expression node {type(n).__name__}")
        memo[id(n)] = v
        return v

    return ev(e)


# ---------------------------------------------------------------------------
# Printing

_ADD, _MUL, _ATOM = 1, 2, 3


def _fraction_text(f: Fraction) -> str:
    if f.denominator == 1:
        return str(f.numerator)
    as_float = float(f)
    if Fraction(repr(as_float)) == f:
        return repr(as_float)
    return f"({f.numerator}/{f.denominator})"


def pretty(e: Expr) -> str:
    """Readable infix text, e.g. `max(ceil(128/tile_k)*tile_m*tile_k*2/22.5, ...)`.

    `a/22.5` is a Rate (rounded up), `ceil(a/b)` and `floor(a/b)` the divisions,
    `select(k, a, b)` is a if knob k is 1 else b."""
    return _pp(e)[0]


def _wrap(e: Expr, level: int) -> str:
    text, own = _pp(e)
    return f"({text})" if own < level else text


def _pp(e: Expr) -> tuple[str, int]:
    if isinstance(e, Const):
        return str(e.value), (_ATOM if e.value >= 0 else _ADD)
    if isinstance(e, (Var, Knob)):
        return e.name, _ATOM
    if isinstance(e, Add):
        out = _wrap(e.terms[0], _ADD)
        for t in e.terms[1:]:
            s = _wrap(t, _ADD)
            out += f" - {s[1:]}" if s.startswith("-") else f" + {s}"
        return out, _ADD
    if isinstance(e, Mul):
        fs = list(e.factors)
        prefix = ""
        if isinstance(fs[0], Const) and fs[0].value < 0:
            prefix, c = "-", -fs[0].value
            fs = fs[1:] if c == 1 else [Const(c), *fs[1:]]
        return prefix + "*".join(_wrap(f, _MUL + 1 if isinstance(f, Const) else _MUL) for f in fs), (
            _ADD if prefix else _MUL
        )
    if isinstance(e, (Max, Min)):
        name = "max" if isinstance(e, Max) else "min"
        return f"{name}({', '.join(pretty(t) for t in e.items)})", _ATOM
    if isinstance(e, (CeilDiv, FloorDiv)):
        name = "ceil" if isinstance(e, CeilDiv) else "floor"
        return f"{name}({_wrap(e.num, _MUL)}/{_wrap(e.den, _ATOM)})", _ATOM
    if isinstance(e, Select):
        return f"select({e.cond.name}, {pretty(e.if_true)}, {pretty(e.if_false)})", _ATOM
    if isinstance(e, Rate):
        return f"{_wrap(e.amount, _MUL)}/{_fraction_text(e.throughput)}", _MUL
    raise TypeError(f"unknown expression node {type(e).__name__}")
