"""The per-core instructions of a reduction split's combine (`loom.mapping.reduction`).

Cores `r = 1 .. w-1` of a split group (a line or rectangle of cores: the innermost level of
each of its dimensions) are senders, core `r = 0` (the group's first core) is the root. After its
chunk of the loop, once per tile:

- sender compute: copies each partial state (a local buffer) into the circular buffer
  `part_<state>` (so the writer may read it while compute goes on);
- sender writer: waits for the root's `gather_ready`, writes every state into the root's
  `gather_<state>` at slot `r - 1`, waits for the writes, then increments the root's
  `gather_valid` and frees `part_<state>`;
- root writer: reserves `gather_<state>` (all w - 1 slots), tells each sender it is ready, waits
  until all w - 1 have written, and pushes the CBs to compute;
- root compute: merges the partials one at a time into its own states (sum: add; max: max;
  lse: `M = max(m, m_j)`, `x = x * exp(m - M) + x_j * exp(m_j - M)`, `m = M`, a carried sum adds), then pops.

The root alone then runs the loop's epilogue; the root's consumer never reads a partial before
its sender's write completed, because `gather_valid` is incremented only after the sender's
writes (NoC ordering on one path, plus the sender's barrier).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from loom.backend import program as P
from loom.errors import UnsupportedError
from loom.mapping.reduction import Split

READY, VALID = "gather_ready", "gather_valid"


@dataclass(frozen=True)
class State:
    """A partial state: its local buffer and what it is in the combine."""

    label: str
    role: str  # sum | max | rescaled
    buffer: str
    rows: int
    cols: int
    dtype: str


@dataclass
class CombineCode:
    """What one core of the split line adds: instructions per role and its extra storage."""

    compute: list = field(default_factory=list)
    writer: list = field(default_factory=list)
    cbs: list[P.CB] = field(default_factory=list)
    locals: list[P.Buffer] = field(default_factory=list)


def combine_code(split: Split, states: list[State], rank: int, coord: tuple[int, ...]) -> CombineCode:
    """The combine instructions of the core at `coord`, the `rank`-th core of its split group."""
    size = {dim: cores for dim, _, cores in split.levels}  # innermost levels: stride 1 along their dim
    root = tuple(c - c % size[d] if d in size else c for d, c in enumerate(coord))
    if rank:
        return _sender(states, rank, root)
    senders = []
    for offsets in itertools.product(*[range(cores) for _, _, cores in split.levels]):  # rank order
        shift = {dim: off for (dim, _, _), off in zip(split.levels, offsets)}
        if any(offsets):
            senders.append(tuple(c + shift.get(d, 0) for d, c in enumerate(root)))
    return _root(split, states, senders)


def _sender(states: list[State], rank: int, root: tuple[int, ...]) -> CombineCode:
    code = CombineCode(cbs=[P.CB(f"part_{s.label}", s.dtype, s.rows, s.cols, 1) for s in states])
    for s in states:
        code.compute += [P.CbReserve(f"part_{s.label}"), P.Copy(P.Ref(s.buffer), P.Ref(f"part_{s.label}")),
                         P.CbPush(f"part_{s.label}")]
    code.writer += [P.CbWait(f"part_{s.label}") for s in states]
    code.writer += [P.SemWait(READY, 1), P.SemSet(READY, 0)]
    code.writer += [P.Write(root, f"part_{s.label}", src="front", dst_cb=f"gather_{s.label}",
                            dst_offset=(rank - 1) * s.rows * s.cols) for s in states]
    code.writer += [P.Barrier(), P.SemInc(VALID, 1, core=root)]
    code.writer += [P.CbPop(f"part_{s.label}") for s in states]
    return code


def _root(split: Split, states: list[State], senders: list[tuple[int, ...]]) -> CombineCode:
    n = len(senders)
    code = CombineCode(cbs=[P.CB(f"gather_{s.label}", s.dtype, s.rows * n, s.cols, 1) for s in states])
    code.writer += [P.CbReserve(f"gather_{s.label}") for s in states]
    code.writer += [P.SemInc(READY, 1, core=sender) for sender in senders]
    code.writer += [P.SemWait(VALID, n), P.SemSet(VALID, 0)]
    code.writer += [P.CbPush(f"gather_{s.label}") for s in states]
    code.compute += [P.CbWait(f"gather_{s.label}") for s in states]
    scheme = split.loop.combine
    if scheme == "lse":
        (m,) = [s for s in states if s.role == "max"] or [None]
        if m is None:
            raise UnsupportedError("a log-sum-exp combine needs one running max among the carried values")
        # temporaries: the new max, the two rescale factors, one product per rescaled state
        code.locals += [P.Buffer(f"combine_{t}", m.dtype, m.rows, m.cols) for t in ("max", "own", "other")]
        code.locals += [P.Buffer(f"combine_{s.label}", s.dtype, s.rows, s.cols) for s in states if s.role == "rescaled"]
        for j in range(n):
            code.compute += _rescale(states, m, j)
    else:
        op = {"sum": "add", "max": "max"}[scheme]
        for j in range(n):
            code.compute += [P.Binary(op, P.Ref(s.buffer), _partial(s, j), P.Ref(s.buffer)) for s in states]
    code.compute += [P.CbPop(f"gather_{s.label}") for s in states]
    return code


def _partial(s: State, j: int) -> P.Ref:
    return P.Ref(f"gather_{s.label}", row=j * s.rows, rows=s.rows, cols=s.cols)


def _rescale(states: list[State], m: State, j: int) -> list:
    """Merge partial j by log-sum-exp: M = max(m, m_j), x = x * exp(m - M) + x_j * exp(m_j - M), m = M;
    a carried sum adds its partial."""
    new, own, other = P.Ref("combine_max"), P.Ref("combine_own"), P.Ref("combine_other")
    ops = [P.Binary("max", P.Ref(m.buffer), _partial(m, j), new),
           P.Binary("sub", P.Ref(m.buffer), new, own), P.Unary("exp", own, own),
           P.Binary("sub", _partial(m, j), new, other), P.Unary("exp", other, other)]
    for s in states:
        if s.role == "sum":  # a plain sum carried beside the online softmax (a picked logit): partials add
            ops.append(P.Binary("add", P.Ref(s.buffer), _partial(s, j), P.Ref(s.buffer)))
        if s.role != "rescaled":
            continue
        product = P.Ref(f"combine_{s.label}")
        ops += [P.Binary("mul", P.Ref(s.buffer), own, P.Ref(s.buffer), "col"),
                P.Binary("mul", _partial(s, j), other, product, "col"),
                P.Binary("add", P.Ref(s.buffer), product, P.Ref(s.buffer))]
    return ops + [P.Copy(new, P.Ref(m.buffer))]
