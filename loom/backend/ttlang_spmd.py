"""Fold per-core TT-Lang statements into one SPMD kernel body and print it (see `ttlang.py`).

Loom's `Program` gives every core its own role programs with constant coordinates; TT-Lang runs
one body on every node of the grid and asks `ttl.node(dims=2)` for `(cx, cy)`. Folding works
on the statement trees of `ttlang_lower`:
1. `nest` turns an `Acquire` and its `Release` in the same statement list into a `with` block.
2. `merge` aligns the cores' trees: statements that agree in everything but numbers merge, and a
   number that differs between cores (a tile offset, a trip count, a pipe index) becomes a
   `Slot`; where the statements themselves differ (multicast sender vs receiver, idle cores) the
   smallest differing stretch becomes an `if` on the core.
3. `Printer` renders a slot as the simplest exact formula in `cx`, `cy` (`t_tile_m + cy`,
   `cx // 4`), else as a per-core table, and an `if` on cores as `net.is_src()` or a coordinate
   test.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from loom.backend import program as P
from loom.backend.ttlang_lower import (
    Acquire,
    Assign,
    Comment,
    CopyIn,
    CopyOut,
    CoreCond,
    For,
    If,
    IterCond,
    Net,
    Recv,
    Release,
    Send,
    Store,
    With,
)

LINE = 110
"""Lines longer than this are wrapped where the printer can (multi-item `with`)."""

MAX_NESTING = 14
"""Most `for`/`with` blocks nested in one kernel (CPython allows 20 statically nested blocks)."""


# --- with-blocks --------------------------------------------------------------------------------


def nest(stmts: list | tuple, depth: int = 0) -> list:
    """Turn an `Acquire` and its `Release` in the same list into a `with` block when everything
    acquired between them is also released between them (overlapping lifetimes stay explicit)."""
    items = []
    for s in stmts:
        if isinstance(s, For):
            s = For(s.var, s.count, tuple(nest(s.body, depth + 1)), s.note)
        elif isinstance(s, If):
            s = _hoist(If(s.cond, tuple(nest(s.then, depth)), tuple(nest(s.orelse, depth)), s.note))
            if isinstance(s, list):
                items += s
                continue
        items.append(s)
    items = _order_releases(items)
    pairs = _pairs(items)
    out: list = []
    i = 0
    while i < len(items):
        s = items[i]
        j = pairs.get(i)
        if j is not None and depth < MAX_NESTING and _balanced(items, pairs, i, j):
            body = nest(items[i + 1:j], depth + 1)
            if len(body) == 1 and isinstance(body[0], With):
                out.append(With((s, *body[0].items), body[0].body))
            else:
                out.append(With((s,), tuple(body)))
            i = j + 1
            continue
        out.append(s)
        i += 1
    return out


def _pairs(items: list) -> dict[int, int]:
    """Index of each `Acquire` -> index of its `Release` in the same list."""
    open_, out = {}, {}
    for k, s in enumerate(items):
        if isinstance(s, Acquire):
            open_[s.handle] = k
        elif isinstance(s, Release) and s.handle in open_:
            out[open_.pop(s.handle)] = k
    return out


def _balanced(items: list, pairs: dict[int, int], i: int, j: int) -> bool:
    """Whether every block acquired or released strictly between `i` and `j` is both, in there."""
    for k in range(i + 1, j):
        s = items[k]
        if isinstance(s, Acquire) and not (k in pairs and pairs[k] < j):
            return False
        if isinstance(s, Release) and not any(a > i and b == k for a, b in pairs.items()):
            return False
        if isinstance(s, (For, If, With)) and any(isinstance(x, Release) for x in _walk((s,))):
            inner = {x.handle for x in _walk((s,)) if isinstance(x, Acquire)}
            if any(isinstance(x, Release) and x.handle not in inner for x in _walk((s,))):
                return False
    return True


def _hoist(node: If) -> If | list:
    """Move a `Release` that ends both branches of an `if` to after it."""
    then, orelse, after = list(node.then), list(node.orelse), []
    while then and orelse and isinstance(then[-1], Release) and then[-1] == orelse[-1]:
        after.insert(0, then.pop())
        orelse.pop()
    if not after:
        return node
    return ([If(node.cond, tuple(then), tuple(orelse), node.note)] if then or orelse else []) + after


def _order_releases(items: list) -> list:
    """Within a run of adjacent releases, release the most recently acquired block first."""
    last: dict[str, int] = {}
    acq: list[int] = []
    for k, s in enumerate(items):
        if isinstance(s, Acquire):
            last[s.handle] = k
        acq.append(last.get(s.handle, -1) if isinstance(s, Release) else -1)
    out: list = []
    run: list = []
    for k, s in enumerate(items + [None]):
        if isinstance(s, Release):
            run.append((acq[k], s))
            continue
        out += [r for _, r in sorted(run, key=lambda t: -t[0])]
        run = []
        if s is not None:
            out.append(s)
    return out


# --- merging per-core trees ---------------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """An integer that differs between cores: `values` maps each core of the scope to its value."""

    values: tuple[tuple[tuple[int, int], int], ...]

    def get(self) -> dict[tuple[int, int], int]:
        return dict(self.values)


@dataclass(frozen=True)
class ASlot:
    """An affine index whose coefficients or constant differ between cores."""

    const: Any
    terms: tuple[tuple[str, Any], ...]


def key(node: Any) -> Any:
    """What two cores' statements must share to merge (everything but numbers and bodies)."""
    if not is_dataclass(node):
        return node
    parts: list = [type(node).__name__]
    for f in fields(node):
        kind, value = f.metadata.get("kind"), getattr(node, f.name)
        if kind == "num":
            parts.append(_num_shape(value))
        elif kind == "node":
            parts.append(key(value))
        elif kind == "nodes":
            parts.append(tuple(key(v) for v in value))
        elif kind != "body":
            parts.append(value)
    return tuple(parts)


def _num_shape(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_num_shape(v) for v in value)
    return "n"


def merge(seqs: dict[tuple[int, int], tuple | list]) -> tuple:
    """One statement list for all cores in `seqs` (core -> its statements)."""
    cores = list(seqs)
    keys = {c: [key(n) for n in seqs[c]] for c in cores}
    first = keys[cores[0]]
    if all(keys[c] == first for c in cores):
        return tuple(_merge_node({c: seqs[c][i] for c in cores}) for i in range(len(first)))
    shortest = min(len(k) for k in keys.values())
    p = 0
    while p < shortest and all(keys[c][p] == first[p] for c in cores):
        p += 1
    s = 0
    while s < shortest - p and all(keys[c][len(keys[c]) - 1 - s] == first[len(first) - 1 - s] for c in cores):
        s += 1
    prefix = [_merge_node({c: seqs[c][i] for c in cores}) for i in range(p)]
    suffix = [_merge_node({c: seqs[c][len(seqs[c]) - s + i] for c in cores}) for i in range(s)]
    classes: dict[tuple, list] = {}
    for c in cores:
        classes.setdefault(tuple(keys[c][p:len(keys[c]) - s]), []).append(c)
    order = sorted(classes.items(), key=lambda kv: (not kv[0], min(kv[1])))
    return tuple(prefix + _chain(order, seqs, p, s, frozenset(cores)) + suffix)


def _chain(order: list, seqs: dict, p: int, s: int, universe: frozenset) -> list:
    (_, cores), rest = order[0], order[1:]
    body = merge({c: seqs[c][p:len(seqs[c]) - s] for c in cores})
    if not rest:
        return list(body)
    others = universe - frozenset(cores)
    orelse = _chain(rest, seqs, p, s, others)
    return [If(CoreCond(frozenset(cores), universe), body, tuple(orelse))]


def _merge_node(nodes: dict) -> Any:
    sample = next(iter(nodes.values()))
    if not is_dataclass(sample):
        return sample
    kwargs = {}
    for f in fields(sample):
        kind = f.metadata.get("kind")
        values = {c: getattr(n, f.name) for c, n in nodes.items()}
        if kind == "num":
            kwargs[f.name] = _merge_num(values)
        elif kind == "body":
            kwargs[f.name] = merge(values)
        elif kind == "node":
            kwargs[f.name] = _merge_node(values)
        elif kind == "nodes":
            kwargs[f.name] = tuple(_merge_node({c: v[i] for c, v in values.items()})
                                   for i in range(len(getattr(sample, f.name))))
        else:
            kwargs[f.name] = getattr(sample, f.name)
    return type(sample)(**kwargs)


def _merge_num(values: dict) -> Any:
    sample = next(iter(values.values()))
    if isinstance(sample, tuple):
        return tuple(_merge_num({c: v[i] for c, v in values.items()}) for i in range(len(sample)))
    distinct = set(values.values())
    if len(distinct) == 1:
        return sample
    if all(isinstance(v, int) for v in distinct):
        return Slot(tuple(sorted(values.items())))
    affs = {c: P.Affine.of(v) for c, v in values.items()}
    names = sorted({n for a in affs.values() for n in a.variables})
    terms = tuple((n, _merge_num({c: dict(a.terms).get(n, 0) for c, a in affs.items()})) for n in names)
    return ASlot(_merge_num({c: a.const for c, a in affs.items()}), terms)


# --- printing -----------------------------------------------------------------------------------


class Printer:
    """Renders merged statements as Python lines."""

    def __init__(self, grid: tuple[int, int], nets: dict[str, Net], net_names: dict[str, str],
                 loop_notes: dict[str, str] | None = None):
        self.grid = grid
        self.nets = {net_names[cb]: n for cb, n in nets.items()}
        self.loop_notes = loop_notes or {}
        self.lines: list[str] = []

    def emit(self, stmts: tuple | list, indent: int) -> list[str]:
        self.lines = []
        self.block(stmts, indent)
        return self.lines

    def line(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def block(self, stmts: tuple | list, indent: int) -> None:
        if not stmts:
            self.line(indent, "pass")
        for s in stmts:
            self.stmt(s, indent)

    def stmt(self, s: Any, ind: int) -> None:
        if isinstance(s, For):
            note = self.loop_notes.get(s.var)
            self.line(ind, f"for {s.var} in range({self.num(s.count)}):" + (f"  # {note}" if note else ""))
            self.block(s.body, ind + 1)
        elif isinstance(s, If):
            self.if_chain(s, ind, "if")
        elif isinstance(s, With):
            items = [f"{a.dfb}.{a.kind}() as {a.handle}" for a in s.items]
            text = f"with {', '.join(items)}:"
            if len(items) > 1 and len("    " * ind + text) > LINE:
                self.line(ind, "with (")
                for item in items:
                    self.line(ind + 1, item + ",")
                self.line(ind, "):")
            else:
                self.line(ind, text)
            self.block(s.body, ind + 1)
        elif isinstance(s, Acquire):
            self.line(ind, f"{s.handle} = {s.dfb}.{s.kind}()")
        elif isinstance(s, Release):
            self.line(ind, f"{s.handle}.{s.kind}()")
        elif isinstance(s, CopyIn):
            self.line(ind, f"ttl.copy({self.slice(s.tensor, s.start, s.size, ind)}, {s.handle}).wait()")
        elif isinstance(s, CopyOut):
            self.line(ind, f"ttl.copy({s.handle}, {self.slice(s.tensor, s.start, s.size, ind)}).wait()")
        elif isinstance(s, Send):
            self.line(ind, f"ttl.copy({s.handle}, {s.net}_pipes[{self.num(s.pipe)}]).wait()  # multicast")
        elif isinstance(s, Recv):
            pipe = f"{s.net}_pipes[{self.num(s.pipe)}]"
            self.line(ind, f"ttl.copy({pipe}, {s.handle}).wait()  # multicast receive")
        elif isinstance(s, Store):
            self.line(ind, f"{s.handle}.store({s.expr})")
        elif isinstance(s, Assign):
            self.line(ind, f"{s.var} = {s.expr}")
        elif isinstance(s, Comment):
            self.line(ind, f"# {s.text}")
        else:
            raise TypeError(f"cannot print {s!r}")

    def if_chain(self, s: If, ind: int, word: str) -> None:
        note = ""
        if isinstance(s.cond, IterCond):
            note = ("  # only the last iteration's value is used after the loop" if s.cond.last else
                    "  # the next iteration reads it; after the last one it is dead")
        elif not s.orelse and word == "if":
            note = "  # the other nodes have no part in this"
        self.line(ind, f"{word} {self.cond(s.cond, s)}:" + note)
        self.block(s.then, ind + 1)
        if len(s.orelse) == 1 and isinstance(s.orelse[0], If) and isinstance(s.orelse[0].cond, CoreCond):
            self.if_chain(s.orelse[0], ind, "elif")
        elif s.orelse:
            self.line(ind, "else:")
            self.block(s.orelse, ind + 1)

    # ---- numbers
    def num(self, value: Any, add: int = 0) -> str:
        if isinstance(value, int):
            return str(value + add)
        if isinstance(value, Slot):
            return self.slot(value, add)
        if isinstance(value, P.Affine):
            value = ASlot(value.const, value.terms)
        parts = []
        for name, c in value.terms:
            if isinstance(c, int):
                if c:
                    parts.append(name if c == 1 else f"-{name}" if c == -1 else f"{c} * {name}")
            else:
                parts.append(f"({self.slot(c)}) * {name}")
        const = value.const
        if isinstance(const, int):
            if const + add or not parts:
                parts.append(str(const + add))
        else:
            parts.append(self.slot(const, add))
        text = " + ".join(parts)
        return text.replace("+ -", "- ")

    def slot(self, slot: Slot, add: int = 0) -> str:
        values = {c: v + add for c, v in slot.get().items()}
        if len(set(values.values())) == 1:
            return str(next(iter(values.values())))
        return fit(values, self.grid)

    def slice(self, tensor: str, start: Any, size: tuple[int, int], ind: int) -> str:
        """`tensor[rows, cols]` in tiles; the compound start of a multi-tile range goes into `row`/`col`."""
        dims = []
        for s, n, var in zip(start, size, ("row", "col")):
            lo = self.num(s)
            if n == 1:
                dims.append(lo)
            elif " " in lo:
                self.line(ind, f"{var} = {lo}")
                dims.append(f"{var}:{var} + {n}")
            else:
                dims.append(f"{lo}:{self.num(s, n)}")
        return f"{tensor}[{', '.join(dims)}]"

    # ---- conditions
    def cond(self, c: Any, node: If) -> str:
        if isinstance(c, IterCond):
            if c.last:
                return f"{c.var} == {self.num(c.count, -1)}"
            return f"{c.var} < {self.num(c.count, -1)}"
        used = {s.net for s in _walk((*node.then, *node.orelse)) if isinstance(s, (Send, Recv))}
        for name in sorted(used) + sorted(set(self.nets) - used):
            net = self.nets[name]
            if net.senders & c.universe == c.cores:
                return f"{name}_net.is_src()"
            if net.receivers & c.universe == c.cores:
                return f"{name}_net.is_dst()"
        return predicate(c.cores, c.universe)


def _walk(stmts: tuple) -> Any:
    for s in stmts:
        yield s
        if isinstance(s, With):
            yield from s.items
        for f in ("body", "then", "orelse"):
            if hasattr(s, f):
                yield from _walk(getattr(s, f))


def fit(values: dict[tuple[int, int], int], grid: tuple[int, int]) -> str:
    """The simplest exact formula of `values` (core -> int) in `cx`, `cy`, else a table lookup."""
    feats = [("cx", lambda x, y: x), ("cy", lambda x, y: y)]
    for d in range(2, max(grid) + 1):
        feats += [(f"cx // {d}", lambda x, y, d=d: x // d), (f"cy // {d}", lambda x, y, d=d: y // d),
                  (f"cx % {d}", lambda x, y, d=d: x % d), (f"cy % {d}", lambda x, y, d=d: y % d)]
    pts = list(values.items())
    for n in (1, 2):
        for combo in itertools.combinations(feats, n):
            coeffs = _solve(pts, [f for _, f in combo])
            if coeffs is not None:
                return _formula(coeffs, [name for name, _ in combo])
    xs = {x for x, _ in values}
    if all(len({v for (x, _), v in values.items() if x == cx}) == 1 for cx in xs):
        row = [next((v for (x, _), v in values.items() if x == i), 0) for i in range(grid[0])]
        return f"{_tuple(row)}[cx]"
    ys = {y for _, y in values}
    if all(len({v for (_, y), v in values.items() if y == cy}) == 1 for cy in ys):
        col = [next((v for (_, y), v in values.items() if y == i), 0) for i in range(grid[1])]
        return f"{_tuple(col)}[cy]"
    table = [_tuple([values.get((x, y), 0) for x in range(grid[0])]) for y in range(grid[1])]
    return f"({', '.join(table)},)[cy][cx]"


def _tuple(items: list) -> str:
    return "(" + ", ".join(map(str, items)) + ("," if len(items) == 1 else "") + ")"


def _solve(pts: list, funcs: list) -> list[int] | None:
    """Integer `a, b...` with `v = a + sum(b_i f_i(x, y))` at every point, if any."""
    rows = [[1] + [f(x, y) for f in funcs] for (x, y), _ in pts]
    vals = [v for _, v in pts]
    import numpy as np

    a = np.array(rows, dtype=float)
    sol, *_ = np.linalg.lstsq(a, np.array(vals, dtype=float), rcond=None)
    coeffs = [int(round(c)) for c in sol]
    if any(abs(c) > 10**6 for c in coeffs) or any(c == 0 for c in coeffs[1:]):
        return None
    if all(sum(c * r for c, r in zip(coeffs, row)) == v for row, v in zip(rows, vals)):
        return coeffs
    return None


def _formula(coeffs: list[int], names: list[str]) -> str:
    parts = []
    for c, name in zip(coeffs[1:], names):
        atom = name if " " not in name else f"({name})"
        parts.append(name if c == 1 else f"-{atom}" if c == -1 else f"{c} * {atom}")
    if coeffs[0] or not parts:
        parts.append(str(coeffs[0]))
    return " + ".join(parts).replace("+ -", "- ")


def predicate(cores: frozenset, universe: frozenset) -> str:
    """A test on `(cx, cy)` true exactly on `cores` among `universe`."""
    tests = []
    for axis, i in (("cx", 0), ("cy", 1)):
        vals = sorted({c[i] for c in universe})
        for v in vals:
            tests += [(f"{axis} == {v}", lambda c, i=i, v=v: c[i] == v),
                      (f"{axis} != {v}", lambda c, i=i, v=v: c[i] != v),
                      (f"{axis} < {v}", lambda c, i=i, v=v: c[i] < v),
                      (f"{axis} >= {v}", lambda c, i=i, v=v: c[i] >= v)]
        for d in range(2, max(vals) + 2 if vals else 2):
            for r in range(d):
                tests.append((f"{axis} % {d} == {r}", lambda c, i=i, d=d, r=r: c[i] % d == r))
    for text, test in tests:
        if {c for c in universe if test(c)} == set(cores):
            return text
    for (t1, f1), (t2, f2) in itertools.combinations(tests, 2):
        if {c for c in universe if f1(c) and f2(c)} == set(cores):
            return f"{t1} and {t2}"
    return f"(cx, cy) in {tuple(sorted(cores))}"


def uses_node(lines: list[str]) -> bool:
    """Whether rendered lines refer to the node coordinates."""
    return any(re.search(r"\bc[xy]\b", ln) for ln in lines)
