"""Stage 5 on demand: every candidate's model, each built the first time something reads it.

Stage 6 needs every candidate's lower bound but solves only the few the bounds cannot rule out;
`loom.solve.order` bounds the candidates in worker processes (each builds and bounds its share, only
the bounds come back; with one job, `unkept` builds each for its bound and drops it), so this process
keeps the models it solves, replays or reports, and no others. A model is the same whoever builds it
(`build_model` is a function of the candidate). The models built in one process share the subtrees they
have in common (`loom.model.sharing`).
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator, Sequence
from typing import overload

from xdsl.dialects.builtin import ModuleOp

from loom.arch import Arch
from loom.mapping.candidates import Candidate
from loom.model import expr as E
from loom.model.constraints import CandidateModel, build_model
from loom.passes.l1_footprint import L1Footprint


class CandidateModels(Sequence[CandidateModel]):
    """The models of `candidates`, in their order, built on first read; `seconds`: time spent building here."""

    def __init__(self, concrete: ModuleOp, candidates: Sequence[Candidate], arch: Arch, footprint: L1Footprint):
        self.concrete, self.candidates, self.arch, self.footprint = concrete, list(candidates), arch, footprint
        self.names = [c.name for c in self.candidates]
        self._built: list[CandidateModel | None] = [None] * len(self.candidates)
        self._index = {name: i for i, name in enumerate(self.names)}
        self._nodes: dict = {}  # the candidates' models share their common subtrees (`loom.model.sharing`)
        self.seconds = 0.0

    def __len__(self) -> int:
        return len(self.candidates)

    @overload
    def __getitem__(self, i: int) -> CandidateModel: ...

    @overload
    def __getitem__(self, i: slice) -> list[CandidateModel]: ...

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if self._built[i] is None:
            self._built[i] = self._build(self.candidates[i], self._nodes)
        return self._built[i]

    def unkept(self) -> Iterator[CandidateModel]:
        """Every model, in order, built anew over a node table of its own and not kept: to bound them all when
        only a few are read again. Their nodes are freed with the table, by reference counts, instead of
        lasting for the cycle collector to walk (a full collection of a compilation's objects takes a few
        tenths of a second)."""
        nodes: dict = {}
        return (self._build(candidate, nodes) for candidate in self.candidates)

    def _build(self, candidate: Candidate, nodes: dict) -> CandidateModel:
        """`candidate`'s model, its subtrees shared through the table `nodes`; the time spent goes to `seconds`."""
        start = time.perf_counter()
        with E.sharing(nodes), cycle_collection_paused():
            model = build_model(self.concrete, candidate, self.arch, self.footprint)
        self.seconds += time.perf_counter() - start
        return model

    def __iter__(self) -> Iterator[CandidateModel]:
        return (self[i] for i in range(len(self)))

    def named(self, name: str) -> CandidateModel | None:
        """The model of the candidate called `name`, if there is one (no other model is built)."""
        i = self._index.get(name)
        return None if i is None else self[i]


@contextlib.contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Python's cycle collector paused while models are built and bounded: a build makes tens of thousands of expression
    nodes, which trigger collections that walk every object the compilation holds (a quarter of the bounding
    time of a kernel of 580 candidates, mamba2's chunk scan); the nodes form no cycles, and reference counts
    free them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
