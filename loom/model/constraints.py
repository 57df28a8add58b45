"""Stage 5c: one constrained optimisation problem per candidate.

    minimise T(x, b)  subject to
      x_k a multiple of the architecture's block alignment that divides the extent it tiles,
          padded to whole tiles, or a power of two times the alignment where no reduction masks
          that dimension's tail (`loom.mapping.block_sizes`),
      L1 footprint (stage 3's storage slots, doubled where a pipe overlaps the transfer that
          fills or drains them; on a split's root core also the gathered partial states and
          the combine's temporaries) <= usable L1,
Cores past the last tile of an axis idle (the model's ceil divisions account for them), except
      along an axis whose cores share a multicast, which run in lockstep: there every core runs
      as many blocks as the busiest, those past the last tile on padding (nothing moves to or from
      DRAM for them); a candidate with `even_splits` (TT-Lang's) and an axis of a fixed block size
      require the tiles to split evenly.
The matrix engine's minimum of 32 per dimension is implied by the alignment.
"""

from __future__ import annotations

import functools
import math
import weakref
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from loom.arch import Arch
from loom.ir.dialect import SymOp
from loom.mapping.block_sizes import block_sizes
from loom.mapping.candidates import Candidate
from loom.model import expr as E
from loom.model.heg import HEG, Combine, For, Hoist, Knob, build_heg, nodes
from loom.model.heg import knobs as heg_knobs
from loom.model.latency import Latency, candidate_latency, dim_expr, tile_bytes
from loom.model.problem import Constraint, Problem
from loom.passes.l1_footprint import L1Footprint, l1_footprint


@dataclass
class CandidateModel:
    candidate: Candidate
    heg: HEG
    latency: Latency
    footprint: E.Expr
    problem: Problem
    knobs: list[Knob]  # declared on the HEG; the problem's knobs are their names

    @property
    def hoists(self) -> list[Hoist]:
        """The loads the hoist knobs may keep in L1."""
        return [k.hoist for k in self.knobs if k.hoist is not None]


def block_domains(module: ModuleOp, arch: Arch, exact_only: bool = False) -> dict[str, list[int]]:
    """Each block size's domain (`loom.mapping.block_sizes`); loops that tile one dimension share a label,
    and its blocks divide the padded extent if any of them is masked (all of them with `exact_only`:
    TT-Lang's candidates, whose tensors are not padded past their tiles). A grid axis's domain also
    holds one core's share of it over each grid dimension and the whole grid; a device loop's does not."""
    align, shares = arch.tiling.block_alignment, (*arch.grid.dims, math.prod(arch.grid.dims))
    known = _DOMAINS.setdefault(module, {})
    key = (align, shares, exact_only)
    if key not in known:  # every candidate of a module asks for the same
        syms = [op for op in module.walk() if isinstance(op, SymOp)]
        exact = {op.label for op in syms if op.masked is not None or exact_only}
        known[key] = {op.label: block_sizes(op.upper_bound.value.data, align, op.label in exact,
                                            () if op.reduction is not None else shares) for op in syms}
    return {label: list(sizes) for label, sizes in known[key].items()}


_DOMAINS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # module -> (alignment, shares, exact) -> domains


def footprint_expr(footprint: L1Footprint, knobs: list[Knob]) -> E.Expr:
    """Sum over storage slots of size x (1 + the overlap knobs of its buffers); a slot a hoist knob
    keeps in L1 holds the device loop's whole panel instead (its block dimension times the loop's trips:
    a tail's padding included). Candidates with the same knobs share it."""
    return _footprint_expr(footprint, tuple(knobs))


@functools.lru_cache(maxsize=4096)
def _footprint_expr(footprint: L1Footprint, knobs: tuple[Knob, ...]) -> E.Expr:
    terms = []
    for term in footprint.terms:
        size = E.mul(term.element_bytes, *[dim_expr(d) for d in term.dims])
        mine = [k for k in knobs if set(k.buffers) & set(term.buffers)]
        doubling = [E.Knob(k.name) for k in mine if k.doubles]
        slot = E.mul(size, E.add(1, *doubling), label=f"slot {term.slot} ({', '.join(term.buffers)})")
        for knob in [k for k in mine if k.hoist is not None]:
            slot = E.select(E.Knob(knob.name), _whole_blocks(term, knob.hoist.extent, knob.hoist.block,
                                                             f"slot {term.slot} kept whole"), slot)
        for knob in [k for k in mine if k.keep is not None]:
            slot = E.select(E.Knob(knob.name), _kept_rows(term, knob, knobs), slot)
        terms.append(slot)
    return E.add(*terms)


def _whole_blocks(term, extent: int, block, label: str) -> E.Expr:
    """A slot widened from one block of a device loop to all of its blocks (a tail's padding included)."""
    dims = [E.mul(E.ceil_div(extent, dim_expr(d)), dim_expr(d)) if d == block else dim_expr(d) for d in term.dims]
    return E.mul(term.element_bytes, *dims, label=label)


def _kept_rows(term, knob: Knob, knobs: tuple[Knob, ...]) -> E.Expr:
    """A slot with the keep knob on: a first pass's buffer holds its whole row of blocks (two, when the tile
    pipe's loads overlap its compute); a slot only later passes used holds nothing."""
    keep = knob.keep
    first = [b for b in term.buffers if b in keep.buffers]
    if not first:
        return E.Const(0) if set(term.buffers) <= set(keep.later) else E.mul(term.element_bytes,
                                                                              *[dim_expr(d) for d in term.dims])
    extent, block = keep.loops[keep.buffers.index(first[0])]
    rows = _whole_blocks(term, extent, block, f"slot {term.slot} holds whole rows")
    overlap = [E.Knob(k.name) for k in knobs if k.name == keep.overlap_knob]
    return E.mul(rows, E.add(1, *overlap))


def combine_footprint(heg: HEG, tile: tuple[int, int]) -> E.Expr:
    """L1 a split's root core adds: width - 1 gathered partial states, plus the log-sum-exp
    temporaries (new max, two rescale factors, one product per rescaled state)."""
    terms = []
    for node in [n for n in nodes(heg) if isinstance(n, Combine)]:
        size = {p.buffer: tile_bytes(p, tile) for p in node.states}
        terms.append(E.mul(node.split.width - 1, E.add(*size.values())))
        if node.split.loop.combine == "lse":
            terms += [E.mul(3, size[p.buffer]) if p.ops[0] == "max" else size[p.buffer] for p in node.states]
    return E.add(*terms, label="combine buffers") if terms else E.Const(0)


def _even_split_axes(candidate: Candidate) -> list:
    """Axes over whose cores some load is multicast and whose tiles must split evenly over them: every
    axis for a candidate with `even_splits`, else those of a fixed block size (a batch axis; an axis
    with a block-size variable runs padding blocks on its last cores instead)."""
    shared = {axis for t in candidate.transfers if t.receivers > 1 for axis in t.access.spatial}
    return [a for a in candidate.axes if a.axis in shared and a.spatial > 1
            and (candidate.even_splits or a.block is None)]


def build_model(concrete: ModuleOp, candidate: Candidate, arch: Arch,
                footprint: L1Footprint | None = None) -> CandidateModel:
    heg = build_heg(concrete, candidate)
    latency = candidate_latency(arch, candidate, heg)
    footprint = footprint or l1_footprint(concrete, (arch.tiling.tile_rows, arch.tiling.tile_cols))
    knobs = heg_knobs(heg)
    l1 = footprint_expr(footprint, knobs)
    if candidate.split:
        l1 = E.add(l1, combine_footprint(heg, (arch.tiling.tile_rows, arch.tiling.tile_cols)))
    constraints = [Constraint(f"L1 footprint <= {arch.l1.usable_bytes} bytes (usable L1 of {arch.name})",
                              l1, arch.l1.usable_bytes)]
    for loop in [n for n in nodes(heg) if isinstance(n, For) and isinstance(n.trips[0], str)]:
        outer, block = dim_expr(loop.trips[0]), dim_expr(loop.trips[1])  # a loop over an enclosing tile
        constraints.append(Constraint(f"{loop.trips[1]} divides {loop.trips[0]} (the loop {loop.name} walks a "
                                      f"{loop.trips[0]} tile)", E.mul(E.ceil_div(outer, block), block), outer, "=="))
    for loop in [n for n in nodes(heg) if isinstance(n, For) and n.until is not None]:
        outer, block = dim_expr(loop.until.block), dim_expr(loop.trips[1])
        small, large = E.minimum(outer, block), E.maximum(outer, block)
        if loop.until.from_start:  # its blocks start at the tile's start: whole blocks up to the extent
            constraints.append(Constraint(f"{loop.trips[1]} divides {loop.until.block} (the loop {loop.name} starts "
                                          f"at {loop.until.axis}.begin)", E.mul(E.ceil_div(outer, block), block),
                                          outer, "=="))
        else:
            constraints.append(Constraint(f"one of {loop.trips[1]} and {loop.until.block} divides the other (the "
                                          f"loop {loop.name} ends at {loop.until.axis}.end)",
                                          E.mul(E.ceil_div(large, small), small), large, "=="))
        if loop.until.spatial > 1:  # pairs need an even number of blocks per core and every core full
            n = E.ceil_div(loop.until.outer_blocks_extent, outer)
            q = E.ceil_div(n, loop.until.spatial)
            uneven = E.add(E.mul(loop.until.spatial, q), E.mul(-1, n), q, E.mul(-2, E.floor_div(q, 2)))
            constraints.append(Constraint(f"{loop.until.knob}: every {loop.until.axis} core runs an even number of "
                                          "blocks, all real", E.select(E.Knob(loop.until.knob), uneven, 0), 0, "=="))
    for axis in _even_split_axes(candidate):
        tiles = E.ceil_div(axis.extent, E.Var(axis.block) if axis.block else axis.fixed_block or 1)
        constraints.append(Constraint(
            f"{axis.axis} splits evenly over its {axis.spatial} cores (cores sharing a multicast run in lockstep)",
            E.mul(E.ceil_div(tiles, axis.spatial), axis.spatial), tiles, "=="))
    domains = block_domains(concrete, arch, exact_only=candidate.even_splits)
    problem = Problem(latency.total, constraints, domains, [k.name for k in knobs], name=candidate.name,
                      prefer_on=[k.name for k in knobs if k.doubles])  # ties: overlap the transfers
    return CandidateModel(candidate, heg, latency, l1, problem, knobs)


__all__ = ["CandidateModel", "block_domains", "build_model", "build_heg", "footprint_expr"]
