"""Steady-state extrapolation: simulate a few iterations of a program's outer loop nest and
extend the per-iteration cost to the full trip count.

Applicability: every non-empty role must start (possibly after a prologue, before an epilogue)
with one loop nest, and the leading perfectly nested levels that all roles share (same trip
counts) form the *spine*; its flattened trip count is N. The program is rewritten twice so that
the spine runs only its first k1 and k2 iterations (outer levels set to 1, a deeper level cut),
both are simulated in full, and every counter c (cycles, bytes, busy time) is extended linearly:
`c(N) = c(k2) + (N - k2) * (c(k2) - c(k1)) / (k2 - k1)`. That is exact when each iteration of
the spine costs the same once the pipeline is full (true for the regular block loops of GEMM-like
programs); tests/sim/test_steady.py checks it stays within 2 % of full simulation. The result
says when it was used (`SimResult.extrapolated`, `SimResult.note`).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from loom.backend.program import ROLES, Loop, Program, walk


def spine(program: Program) -> list[int]:
    """Trip counts of the loop-nest levels every non-empty role starts with (may be empty)."""
    spines = [_role_spine(g.role(k)) for g in program.groups for k in ROLES if g.role(k)]
    if not spines:
        return []
    common: list[int] = []
    for level in zip(*spines):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return common


def _role_spine(body: tuple) -> list[int]:
    loops = [i for i in body if isinstance(i, Loop)]
    if len(loops) != 1:
        return []
    loop, counts = loops[0], [loops[0].count]
    while len(loop.body) == 1 and isinstance(loop.body[0], Loop):
        loop = loop.body[0]
        counts.append(loop.count)
    return counts


def plan(counts: list[int], n: int) -> tuple[list[int], int] | None:
    """New trip counts running the first k >= n flattened iterations of the spine, and k."""
    for j in reversed(range(len(counts))):
        inner = math.prod(counts[j + 1:])
        if counts[j] * inner >= n:
            k = -(-n // inner)
            return [1] * j + [k] + counts[j + 1:], k * inner
    return None


def truncate(program: Program, counts: list[int]) -> Program:
    """`program` with its spine loops running `counts` iterations per level."""
    def cut(body: tuple) -> tuple:
        out = []
        for ins in body:
            if isinstance(ins, Loop):
                ins = _cut_loop(ins, counts, 0)
            out.append(ins)
        return tuple(out)
    groups = [dataclasses.replace(g, **{k: cut(g.role(k)) for k in ROLES}) for g in program.groups]
    return dataclasses.replace(program, groups=tuple(groups))


def _cut_loop(loop: Loop, counts: list[int], level: int) -> Loop:
    body = loop.body
    if level + 1 < len(counts):
        body = (_cut_loop(body[0], counts, level + 1),)
    return Loop(loop.var, counts[level], body)


def _most(count) -> int:
    return count if isinstance(count, int) else count.most


def dynamic_instructions(program: Program) -> int:
    """How many instructions all roles of all cores execute (loops expanded)."""
    def count(body: tuple) -> int:
        return sum(_most(ins.count) * count(ins.body) if isinstance(ins, Loop) else 1 for ins in body)
    return sum(len(g.cores) * count(g.role(k)) for g in program.groups for k in ROLES)


def extrapolation_plan(program: Program, n1: int = 4, n2: int = 8,
                       min_instructions: int = 0) -> dict[str, Any] | None:
    """The two truncated programs and their iteration counts, or None when not worthwhile
    (a spine of fewer than 4 x n2 iterations, or fewer than `min_instructions` executed)."""
    if any(not isinstance(ins.count, int) for g in program.groups for k in ROLES for ins in walk(g.role(k))
           if isinstance(ins, Loop)):
        return None  # trips that grow with an outer loop: its iterations differ, none is steady
    counts = spine(program)
    total = math.prod(counts) if counts else 0
    if total < 4 * n2 or dynamic_instructions(program) < min_instructions:
        return None
    p1, p2 = plan(counts, n1), plan(counts, n2)
    if p1 is None or p2 is None or p2[1] <= p1[1] or p2[1] >= total:
        return None
    return {"counts": counts, "total": total, "k1": p1[1], "k2": p2[1],
            "short": truncate(program, p1[0]), "long": truncate(program, p2[0])}
