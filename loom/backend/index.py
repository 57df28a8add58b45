"""Index expressions of per-core programs: affine in loop variables and the core's coordinates, and the
block references (`Ref`) instructions name with them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from loom.errors import ProgramError

Coord = tuple[int, ...]
"""A core's coordinate in the worker grid: `(x, y)`, or `(x,)` on a ring."""

CORE_VARS = ("cx", "cy")
"""Names under which a core's own coordinates appear in `Affine` expressions."""


@dataclass(frozen=True, slots=True)
class Affine:
    """`const + sum(coeff * var)` over loop variables and core coordinates (`cx`, `cy`)."""

    const: int = 0
    terms: tuple[tuple[str, int], ...] = ()

    @staticmethod
    def var(name: str) -> Affine:
        """The expression consisting of one variable."""
        return Affine(0, ((name, 1),))

    @staticmethod
    def of(value: Idx) -> Affine:
        """`value` as an `Affine` (an int becomes a constant)."""
        if isinstance(value, Affine):
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise ProgramError(f"expected an int or Affine index, found {value!r} ({type(value).__name__})")
        return Affine(value)

    def _combine(self, other: Idx, sign: int) -> Affine:
        o = Affine.of(other)
        coeffs = dict(self.terms)
        for name, c in o.terms:
            coeffs[name] = coeffs.get(name, 0) + sign * c
        return Affine(self.const + sign * o.const, tuple(sorted((n, c) for n, c in coeffs.items() if c)))

    def __add__(self, other: Idx) -> Affine:
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other: Idx) -> Affine:
        return self._combine(other, -1)

    def __rsub__(self, other: Idx) -> Affine:
        return Affine.of(other)._combine(self, -1)

    def __mul__(self, k: int) -> Affine:
        if not isinstance(k, int) or isinstance(k, bool):
            raise ProgramError(f"an Affine index can only be scaled by an int, found {k!r}")
        return Affine(self.const * k, tuple((n, c * k) for n, c in self.terms if c * k))

    __rmul__ = __mul__

    def __neg__(self) -> Affine:
        return self * -1

    def eval(self, env: Mapping[str, int]) -> int:
        """The value under `env` (loop variables and core coordinates)."""
        value = self.const
        for name, c in self.terms:
            value += c * env[name]
        return value

    def subst(self, name: str, value: Idx) -> Affine:
        """This expression with variable `name` replaced by `value`."""
        coeff = dict(self.terms).get(name)
        if not coeff:
            return self
        return Affine(self.const, tuple(t for t in self.terms if t[0] != name)) + Affine.of(value) * coeff

    @property
    def variables(self) -> frozenset[str]:
        """Names this expression depends on."""
        return frozenset(n for n, _ in self.terms)

    def __str__(self) -> str:
        text = ""
        for n, c in self.terms:
            mag = n if abs(c) == 1 else f"{abs(c)}*{n}"
            text += (" - " if c < 0 else " + ") + mag if text else ("-" if c < 0 else "") + mag
        if self.const or not text:
            text += (" - " if self.const < 0 else " + ") + str(abs(self.const)) if text else str(self.const)
        return text


Idx = Affine | int
cx = Affine.var("cx")
cy = Affine.var("cy")


def _aff(value: Idx) -> Affine:
    return Affine.of(value)


def _affs(values: Iterable[Idx]) -> tuple[Affine, ...]:
    return tuple(Affine.of(v) for v in values)


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


@dataclass(frozen=True)
class Ref:
    """A sub-block of a CB's front/back or of a local buffer, in tiles. `rows`/`cols` None means the
    rest of the declared extent after a constant offset; give them explicitly when the offset
    depends on a loop variable."""

    name: str
    row: Idx = 0
    col: Idx = 0
    rows: int | None = None
    cols: int | None = None

    def __post_init__(self) -> None:
        _set(self, "row", _aff(self.row))
        _set(self, "col", _aff(self.col))
