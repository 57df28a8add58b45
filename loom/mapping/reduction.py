"""Reduction-axis parallelism: a device loop whose iterations run on a group of cores.

Stage 1 marks the loops whose carried values combine (`loom.frontend.reductions`); stage 2
records which buffers hold them (`loom.carried`). A split candidate gives the loop the innermost
level of one or more physical dimensions of the view: the `width` cores of that group (a
contiguous line or rectangle of cores) each run a contiguous chunk of the loop's iterations and
produce a partial state; the group's first core (the root) gathers the others' partial states over the NoC
(`gather`: every sender writes its state into the root's L1 and signals it), combines them
(`sum`, `max`, or the log-sum-exp rescale `lse`), and alone runs what follows the loop (the
epilogue and its stores).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.dialects import affine, arith, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation

from loom.ir.dialect import SymOp


@dataclass(frozen=True)
class ReductionLoop:
    """A device loop that may be split, as stage 3 left it."""

    name: str  # its index without `_idx` (tile_k)
    extent: int
    block: str | None  # loom.sym label of its block size
    fixed_block: int | None
    combine: str  # sum | max | lse
    states: tuple[tuple[str, str], ...]  # (buffer label, role: sum | max | rescaled)

    @property
    def short(self) -> str:
        return self.name[5:] if self.name.startswith("tile_") else self.name

    def most_tiles(self, alignment: int) -> int:
        return -(-self.extent // (self.fixed_block or alignment))


@dataclass(frozen=True)
class Split:
    """A candidate's reduction split: the loop, the view level that runs it, the combine."""

    loop: ReductionLoop
    levels: tuple[tuple[int, int, int], ...]  # (physical dim, level, cores), each the innermost of its dim
    scheme: str = "gather"

    @property
    def width(self) -> int:
        return prod(size for _, _, size in self.levels)

    @property
    def label(self) -> str:
        from loom.mapping.views import DIM_NAMES

        group = "".join(f"{DIM_NAMES[d]}{size}" for d, _, size in self.levels)
        return f"{self.loop.short}@{group}:{self.loop.combine}"

    def to_json(self) -> dict:
        """The split as a schedule records it."""
        return {"loop": self.loop.name, "levels": [list(lv) for lv in self.levels], "combine": self.loop.combine,
                "scheme": self.scheme}

    def rank(self, level_coord: dict[tuple[int, int], int]) -> int:
        """A core's position in its group (0 = the root), from its coordinate on each view level."""
        rank = 0
        for dim, level, size in self.levels:
            rank = rank * size + level_coord[(dim, level)]
        return rank

    def describe(self) -> str:
        from loom.mapping.views import DIM_NAMES

        where = " x ".join(f"{DIM_NAMES[d]}{level}:{size}" for d, level, size in self.levels)
        how = {"sum": "summation", "max": "max", "lse": "log-sum-exp rescaling"}[self.loop.combine]
        return (f"{self.loop.name} over {self.width} cores ({where}): partial "
                f"{', '.join(s for s, _ in self.loop.states)} {self.scheme}ed to the group's first core, "
                f"combined by {how}")


def loop_name(op: scf.ForOp) -> str:
    """A device loop's name: its induction variable's, without `_idx`."""
    return (op.body.block.args[0].name_hint or "loop").removesuffix("_idx")


def reduction_loop(module: ModuleOp) -> ReductionLoop | None:
    """The first device loop of the tile body that stage 1 found splittable, if any."""
    (grid,) = [op for op in module.walk() if isinstance(op, affine.ParallelOp)]
    ops = list(grid.body.block.ops)
    for position, op in enumerate(ops):
        if not (isinstance(op, scf.ForOp) and "loom.combine" in op.attributes and "loom.carried" in op.attributes):
            continue
        if any(isinstance(later, scf.ForOp) for later in ops[position + 1:]):
            continue  # the root alone runs what follows; an epilogue with loops is not split (yet)
        ub = op.ub.owner
        if (isinstance(ub, arith.CeilDivUIOp) and isinstance(ub.rhs.owner, SymOp)
                and isinstance(ub.lhs.owner, arith.ConstantOp)):
            extent, block, fixed = ub.lhs.owner.value.value.data, ub.rhs.owner.label, None
        else:
            continue  # a fixed trip count, or a sub-tile loop (a tile's own extent): no block size to trade
        roles = [r.data for r in op.attributes["loom.carried_roles"].data]
        labels = [b.data for b in op.attributes["loom.carried"].data]
        name = loop_name(op)
        return ReductionLoop(name, extent, block, fixed, op.attributes["loom.combine"].data,
                             tuple(zip(labels, roles)))
    return None


def read_back_after(module: ModuleOp, loop: ReductionLoop, tensors: set[str]) -> bool:
    """Every read and store of `tensors` (stored and read back by the kernel) lies after the reduction loop,
    in the epilogue the group's root runs alone: a split moves none of them to another core (`hl.atomic_add`'s
    read and write of `out` after a split-K loop)."""
    from loom.ir.dialect import CopyOp

    (grid,) = [op for op in module.walk() if isinstance(op, affine.ParallelOp)]
    ops = list(grid.body.block.ops)
    position = next(i for i, op in enumerate(ops) if isinstance(op, scf.ForOp)
                    and loop_name(op) == loop.name)
    for op in ops[:position + 1]:  # neither read nor stored before the loop or in it
        for copy in op.walk():
            if isinstance(copy, CopyOp) and "DRAM" in (copy.src_space.data, copy.dst_space.data):
                view = copy.source if copy.src_space.data == "DRAM" else copy.dest
                if view.owner.source.name_hint in tensors:
                    return False
    return True


def split_loop_op(scope: Operation | Block, split: Split) -> scf.ForOp:
    """The scf.for of `split` in (stage 3 or candidate) IR."""
    for op in scope.walk():
        if isinstance(op, scf.ForOp) and "loom.combine" in op.attributes:
            if loop_name(op) == split.loop.name:
                return op
    raise LookupError(f"no loop {split.loop.name} in the module")


def split_note(module: ModuleOp, candidates: list, ranked: list, bounds: dict | None = None) -> str:
    """Why the chosen schedule does not split a reduction loop ('' when it does). `bounds` (candidate
    name -> its lower bound, stage 6's) stand in for split candidates that were pruned, not solved."""
    if ranked and ranked[0].model.candidate.split is not None:
        return ""
    for op in module.walk():
        if isinstance(op, scf.ForOp) and "loom.combine_refused" in op.attributes:
            name = loop_name(op)
            return f"loop {name} stays on one core: {op.attributes['loom.combine_refused'].data}"
    loop = reduction_loop(module)
    if loop is None:
        return ""
    if not any(c.split for c in candidates):
        return (f"loop {loop.name} could split ({loop.combine}); not offered: the grid axes already give every "
                "core enough tiles")
    splits = [(r.cycles, r.model.candidate.name, True) for r in ranked if r.model.candidate.split is not None]
    if bounds is not None:  # bound-ordered: the best split by its bound (its optimum where the bound is exact)
        solved = {name for _, name, _ in splits}
        splits = sorted([(b.value, c.name, b.exact) for c in candidates if c.split is not None and c.name not in solved
                         for b in [bounds.get(c.name)] if b is not None and b.value is not None] + splits)
    if not splits or not ranked:
        return f"loop {loop.name} could split ({loop.combine}); no split candidate was feasible"
    cycles, name, exact = splits[0]
    return (f"loop {loop.name} could split ({loop.combine}); the best split, {name}, "
            f"models {'' if exact else 'at least '}{cycles:,} cycles ({cycles / ranked[0].cycles - 1:+.1%})")
