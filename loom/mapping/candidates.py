"""Stage 4: enumerate schedule candidates: a spatial mapping of the launch grid onto a view of the
core array, an axis order, and a transfer mode for every DRAM load.

- Mapping: with axis order (a1, a2, ...), level l of every physical dimension of the view goes to
  axis a(l+1) (the deepest levels go to the last axis). An axis's spatial size is the product of
  its levels; the rest of its tiles run as a temporal loop on each core, nested in axis order.
- Transfers: a load that does not depend on some axes is read identically by every core that
  differs only in those axes' levels. Along each physical dimension those cores form a contiguous
  segment when the shared levels are the innermost ones there; a multicast over that segment
  (row = x, column = y, rect = both) is legal when the architecture declares the shape. Along one
  dimension the block may instead be forwarded down the line (`forward_row` / `forward_column`:
  the first core reads it, each core writes it on into the next one's L1), offered only where
  it is not dominated: a chain of g cores moves the block g - 1 times at the 1 -> 1 rate, the
  multicast once at its own rate, so forwarding is kept when (g - 1) / rate(1 -> 1) <
  1 / rate(multicast) (Wormhole: g = 2, Blackhole: g <= 3) or the multicast shape is not declared.
  Each load gets unicast plus every legal multicast; two modes that reach the same set of cores
  are one mode (a larger region that moves strictly more bytes over the same links is dropped). A
  minor load (`minor_loads`: read whole by every core, it would move no more than the largest loaded
  tensor once) gets unicast alone.
- Reduction split (`loom.mapping.reduction`): when the tile body has a splittable device loop,
  every view also yields candidates whose innermost levels of one or more physical dimensions
  run that loop's iterations (a line or rectangle of cores computing partial states, gathered and
  combined by its first core); the other levels map the grid axes as above.
- Views use every core, or (when the grid has fewer tiles than cores) at least a quarter of them;
  only when nothing fits that way does any view qualify.
Nothing is solved here: block sizes and pipeline knobs stay free.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from dataclasses import dataclass, field
from math import prod

from xdsl.dialects import affine
from xdsl.dialects.builtin import ModuleOp

from loom.arch import Arch
from loom.ir.dialect import SymOp
from loom.mapping.axis_order import AxisScore, dominance_edges, linear_extensions
from loom.mapping.block_sizes import block_sizes
from loom.mapping.reduction import ReductionLoop, Split, read_back_after, reduction_loop
from loom.mapping.reuse import AccessReuse, access_reuse
from loom.mapping.views import DIM_NAMES, View, enumerate_views

SHAPE_OF_DIMS = {(0,): "row", (1,): "column", (0, 1): "rect"}
# Pruning: reduction splits are offered only when the grid axes have fewer tiles of the minimum
# block than this many per core. With more, every core can already run an output block of 16
# tiles (128x128), past which a split buys no operand reuse the block itself cannot; the split
# would add a combine and shrink nothing. Split candidates use the views the unsplit ones use
# and multicast each load over its largest legal group.
SPLIT_BELOW_TILES_PER_CORE = 16
MIN_OCCUPANCY = 4  # views use at least a quarter of the cores (TTNN's 16 of 64 for a split decode) unless
# nothing else fits (then any view: a kernel with one tile runs on one core)


@dataclass(frozen=True)
class AxisMapping:
    """One grid axis: its block size and which view levels run it in space."""

    axis: str
    extent: int  # elements along the dimension it tiles
    block: str | None  # loom.sym label of the block size, None when fixed in the source
    fixed_block: int | None
    levels: tuple[tuple[int, int, int], ...]  # (physical dim, level, size)

    @property
    def spatial(self) -> int:
        return prod(size for _, _, size in self.levels)

    def most_blocks(self, alignment: int) -> int:
        """Blocks along it at the least block size (`alignment`; its extent is its trip count if fixed)."""
        return -(-self.extent // (self.fixed_block or alignment))


@dataclass(frozen=True)
class Transfer:
    """How one DRAM access moves: unicast, or a multicast over `group` cores per physical dim."""

    tensor: str
    direction: str  # "load" or "store"
    mode: str  # "unicast", "row", "column", "rect"
    group: tuple[int, ...]  # cores per physical dimension that share one read
    access: AccessReuse

    @property
    def receivers(self) -> int:
        return prod(self.group)

    @property
    def label(self) -> str:
        return f"{self.tensor}:{self.mode}"


@dataclass(frozen=True)
class Candidate:
    view: View
    order: tuple[str, ...]  # axis priority; also the temporal loop nest, outermost first
    axes: tuple[AxisMapping, ...]
    transfers: tuple[Transfer, ...]
    free_symbols: tuple[str, ...]
    split: Split | None = None
    hoists: bool = True  # whether stage 5 may keep a device loop's panel in L1 across the innermost loop
    spreads: bool = False  # whether a pipe's DRAM reads may go over both NoCs (a `spread` knob each)
    even_splits: bool = False  # cores sharing a multicast must split their axis evenly (no padded blocks)

    @property
    def name(self) -> str:
        order = "".join(a[5:] if a.startswith("tile_") else a for a in self.order)
        loads = ".".join(t.label for t in self.transfers if t.direction == "load")
        split = f".{self.split.label}" if self.split else ""
        return f"{self.view.name}.{order}{split}" + (f".{loads}" if loads else "")

    @property
    def roots(self) -> int:
        """Cores that run the epilogue and its stores (all but the split's non-root cores)."""
        return self.view.cores // (self.split.width if self.split else 1)

    def axis(self, name: str) -> AxisMapping:
        return next(a for a in self.axes if a.axis == name)


@dataclass
class CandidateSet:
    candidates: list[Candidate]
    full_space: int  # views x axis permutations x transfer modes, before pruning
    scores: list[AxisScore] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def pruned_fraction(self) -> float:
        return 1 - len(self.candidates) / self.full_space if self.full_space else 0.0


def grid_axes(module: ModuleOp) -> tuple[affine.ParallelOp, list[str], dict[str, SymOp]]:
    (grid,) = [op for op in module.walk() if isinstance(op, affine.ParallelOp)]
    labels = [a.data for a in grid.attributes["loom.grid"].data]
    syms = {op.label: op for op in module.walk() if isinstance(op, SymOp)}
    return grid, labels, syms


def axis_scores(axes: list[AxisMapping], reuse: list[AccessReuse]) -> list[AxisScore]:
    scores = []
    for axis in axes:
        shared = [r for r in reuse if r.direction == "load" and axis.axis in r.spatial]
        scores.append(AxisScore(axis.axis, axis.extent, sum(r.tensor_bytes for r in shared), len(shared)))
    return scores


def _axis_extents(module: ModuleOp, labels: list[str], syms: dict[str, SymOp]) -> list[AxisMapping]:
    """Extent and block of each grid axis, read off the grid's trip counts."""
    grid, _, _ = grid_axes(module)
    from xdsl.dialects import arith

    axes = []
    for label, count in zip(labels, grid.operands):
        owner = count.owner
        if isinstance(owner, arith.CeilDivUIOp):  # extent ceildiv block
            extent = owner.lhs.owner.value.value.data
            axes.append(AxisMapping(label, extent, owner.rhs.owner.label, None, ()))
        else:  # a fixed block: the trip count is a constant (block size given in the source)
            axes.append(AxisMapping(label, owner.value.value.data, None, 1, ()))
    return axes


def _assign(view: View, order: list[str] | tuple[str, ...], axes: list[AxisMapping], alignment: int,
            reserved: set[tuple[int, int]] = frozenset()) -> tuple[AxisMapping, ...] | None:
    """Level l of every dimension to axis order[l] (the deepest to the last); the `reserved`
    (dim, level) pairs run a reduction split instead; axes not in `order` run on no level."""
    levels: dict[str, list[tuple[int, int, int]]] = {a.axis: [] for a in axes}
    for dim, factors in enumerate(view.levels):
        for level, size in enumerate(factors):
            if size > 1 and (dim, level) not in reserved:
                if not order:
                    return None
                levels[order[min(level, len(order) - 1)]].append((dim, level, size))
    mapped = []
    for axis in axes:
        chosen = tuple(levels[axis.axis])
        spatial = prod(s for _, _, s in chosen)
        if spatial > max(axis.most_blocks(alignment), 1):
            return None  # more cores than tiles along this axis: partial occupancy covers it
        mapped.append(AxisMapping(axis.axis, axis.extent, axis.block, axis.fixed_block, chosen))
    return tuple(mapped)


def _single_block_axes(axes: list[AxisMapping], alignment: int) -> set[str]:
    """Axes of one block at every block size (a batch of one, a dimension no wider than the least block)."""
    return {a.axis for a in axes if a.most_blocks(alignment) <= 1}


def _placement(view: View, mapped: tuple[AxisMapping, ...], split: Split | None) -> tuple:
    """Which axis (or the split) runs the cores of each dimension, outermost first, as runs of cores: the levels
    of one core (x1x8's first) left out and the levels one owner holds in a row merged (x2x4 with h on its 4
    is x2x2x2 with h on its last two). Candidates with one placement run every block on the same core."""
    owner = {(d, level): a.axis for a in mapped for d, level, _ in a.levels}
    owner.update({(d, level): "split" for d, level, _ in (split.levels if split else ())})
    dims = []
    for d, factors in enumerate(view.levels):
        runs: list[tuple[str | None, int]] = []
        for level, size in enumerate(factors):
            if size > 1:
                who = owner.get((d, level))
                runs[-1:] = [(who, runs[-1][1] * size)] if runs and runs[-1][0] == who else [*runs[-1:], (who, size)]
        dims.append(tuple(runs))
    return tuple(dims)


def minor_loads(reuse: list[AccessReuse], cores: int) -> set[str]:
    """Tensors whose loads take unicast alone: read whole by every core, one would move no more bytes than the
    largest loaded tensor once (a rowwise scale, a norm's weight, a bias beside a matrix). Their multicasts
    would multiply the candidates (three modes each) for no traffic that counts."""
    loads = [r for r in reuse if r.direction == "load"]
    largest = max((r.tensor_bytes for r in loads), default=0)
    return {r.tensor for r in loads if r.tensor_bytes * cores <= largest}


def _transfer_options(access: AccessReuse, axes: tuple[AxisMapping, ...], arch: Arch,
                      dominated_too: bool = False) -> list[Transfer]:
    """Unicast and every legal multicast and forwarding of `access`; forwarding only where the
    multicast does not dominate it, unless `dominated_too` (a given schedule may name it)."""
    unicast = Transfer(access.tensor, access.direction, "unicast", (1,) * len(arch.grid.dims), access)
    if access.direction != "load":
        return [unicast]
    ndims = len(arch.grid.dims)
    shared: dict[int, int] = {}
    for axis in axes:
        if axis.axis not in access.spatial:
            continue
        for dim, _level, size in axis.levels:
            shared.setdefault(dim, 1)
            shared[dim] *= size
    contiguous = []
    for dim, size in shared.items():
        # the sharing cores along `dim` are contiguous when the shared levels are the innermost ones
        dim_levels = sorted((lvl, ax.axis) for ax in axes for d, lvl, s in ax.levels if d == dim and s > 1)
        owners = [name for _, name in dim_levels]
        suffix = owners[len(owners) - sum(1 for o in owners if o in access.spatial):]
        if all(o in access.spatial for o in suffix) and size > 1:
            contiguous.append(dim)
    options = [unicast]
    for dim in contiguous:  # forwarding down one line of the group, where the multicast does not dominate it
        shape = SHAPE_OF_DIMS.get((dim,)) if ndims > 1 else "row"
        hops = shared[dim] - 1
        if dominated_too or shape not in arch.noc.multicast or hops * arch.rates.multicast < arch.rates.core_to_core:
            group = tuple(shared[d] if d == dim else 1 for d in range(ndims))
            options.append(Transfer(access.tensor, access.direction, f"forward_{shape}", group, access))
    seen = {(1,) * ndims}
    for count in range(1, len(contiguous) + 1):
        for dims in itertools.combinations(sorted(contiguous), count):
            shape = SHAPE_OF_DIMS.get(dims) if ndims > 1 else "row"
            if shape is None or shape not in arch.noc.multicast:
                continue
            group = tuple(shared[d] if d in dims else 1 for d in range(ndims))
            if group in seen:
                continue
            seen.add(group)
            options.append(Transfer(access.tensor, access.direction, shape, group, access))
    return options


def enumerate_candidates(module: ModuleOp, arch: Arch, portable: bool = False,
                         point_to_point: bool = False) -> CandidateSet:
    """All retained candidates of a concretized (stage 3) module on `arch`; `portable` leaves out
    what not every backend expresses (reduction splits, forwarding chains, panels kept in L1);
    `point_to_point` keeps only unicast and forwarding (a virtual grid placed row-major on the real
    one, where a multicast's rectangle need not land on a rectangle; `loom.backend.placement`)."""
    start = time.perf_counter()
    grid, labels, syms = grid_axes(module)
    axes = _axis_extents(module, labels, syms)
    reuse = access_reuse(grid)
    scores = axis_scores(axes, reuse)
    # an axis of one block whatever its block size runs no loop worth ordering and no core but one: outermost
    single = _single_block_axes(axes, arch.tiling.block_alignment)
    orders = [tuple(a for a in labels if a in single) + rest
              for rest in linear_extensions([a for a in labels if a not in single], dominance_edges(scores))]
    max_parallel = prod(a.most_blocks(arch.tiling.block_alignment) for a in axes)
    all_views = enumerate_views(tuple(arch.grid.dims), len(labels))
    views = _occupancy_views(all_views, axes, arch, max_parallel)
    free = tuple(sorted(syms))
    candidates = _mapped(views, orders, axes, reuse, arch, free)
    if not candidates:  # no view using every core fits the tile counts: let some cores idle
        candidates = _mapped(all_views, orders, axes, reuse, arch, free)
    if portable:  # TT-Lang: no forwarding chains (its pipes are multicasts), no kept panels, no padded blocks
        alignment = arch.tiling.block_alignment
        candidates = [dataclasses.replace(c, hoists=False, even_splits=True) for c in candidates
                      if not any(t.mode.startswith("forward") for t in c.transfers)
                      and _lockstep_possible(c.axes, c.transfers, alignment)]
    if point_to_point:
        candidates = [c for c in candidates if all(t.mode == "unicast" or t.mode.startswith("forward")
                                                   for t in c.transfers)]
    # a tensor the kernel stores and loads back is read by the core that stored it: no split moves its loads,
    # unless they all follow the loop (the root alone runs what follows it)
    read_back = {r.tensor for r in reuse if r.direction == "load"} & {r.tensor for r in reuse if r.direction == "store"}
    loop = None if portable or point_to_point else reduction_loop(module)
    if loop is not None and read_back and not read_back_after(module, loop, read_back):
        loop = None
    if loop is not None and max_parallel < arch.num_cores * SPLIT_BELOW_TILES_PER_CORE:
        # the split's cores are a level of their own: a dimension may hold one more level than there are axes
        split_views = _occupancy_views(enumerate_views(tuple(arch.grid.dims), len(labels) + 1), axes, arch,
                                       max_parallel)
        candidates += _mapped(split_views, orders, axes, reuse, arch, free, loop, only_splits=True)
    # TT-Lang's `ttl.copy` moves a whole block on one NoC; a virtual grid's NoC links are not the real ones,
    # whose share of each NoC a spread would need (`loom.backend.placement.virtual_arch`)
    if arch.noc.count > 1 and not portable and not point_to_point:
        candidates = [dataclasses.replace(c, spreads=True) for c in candidates]
    modes_per_load = 1 + len(arch.noc.multicast) + len(arch.grid.dims)  # unicast, multicasts, forwarding
    loads = sum(1 for r in reuse if r.direction == "load")
    full = len(all_views) * len(list(itertools.permutations(labels))) * modes_per_load ** loads
    return CandidateSet(candidates, full, scores, time.perf_counter() - start)


def _occupancy_views(views: list[View], axes, arch: Arch, max_parallel: int) -> list[View]:
    """The views worth mapping: every core used; or, where the grid axes have fewer tiles than cores, down to a
    quarter of them; and, along a dimension whose full extent splits some axis's tiles unevenly (13 cores for 64
    tiles, which rules out every multicast there: cores sharing one run in lockstep), the largest power of two
    below that extent, given whole to one axis."""
    tiles = [a.most_blocks(arch.tiling.block_alignment) for a in axes]
    fallback = [1 << (extent.bit_length() - 1) if any(t % extent for t in tiles) else extent
                for extent in arch.grid.dims]
    return [v for v in views if v.occupancy == tuple(arch.grid.dims)
            or (v.cores * MIN_OCCUPANCY >= arch.num_cores
                and (max_parallel < arch.num_cores
                     or all(used == extent or (used == low and len([f for f in factors if f > 1]) == 1)
                            for used, extent, low, factors in zip(v.occupancy, arch.grid.dims, fallback, v.levels))))]


def _splits(view: View, loop: ReductionLoop | None, alignment: int) -> list[Split | None]:
    """No split, and the innermost levels of each non-empty set of dimensions running the
    reduction loop (a line, or a rectangle of cores)."""
    options: list[Split | None] = [None]
    if loop is None:
        return options
    innermost = [(dim, len(f) - 1, f[-1]) for dim, f in enumerate(view.levels) if f and f[-1] > 1]
    for count in range(1, len(innermost) + 1):
        for levels in itertools.combinations(innermost, count):
            if prod(size for _, _, size in levels) <= loop.most_tiles(alignment):
                options.append(Split(loop, levels))
    return options


def _mapped(views, orders, axes, reuse, arch: Arch, free, loop: ReductionLoop | None = None,
            only_splits: bool = False) -> list[Candidate]:
    seen: set = set()
    candidates = []
    minor = minor_loads(reuse, arch.num_cores)
    single = _single_block_axes(axes, arch.tiling.block_alignment)
    for view in views:
        for split in _splits(view, loop, arch.tiling.block_alignment)[1 if only_splits else 0:]:
            reserved = {lv[:2] for lv in split.levels} if split else set()
            for order in orders:
                mapped = _assign(view, [a for a in order if a not in single], axes, arch.tiling.block_alignment,
                                 reserved)
                if mapped is None:
                    continue
                # the split's level takes part in deciding which cores form a contiguous multicast group
                bystander = (AxisMapping(split.loop.name, 0, None, 1, split.levels),) if split else ()
                per_access = [_transfer_options(r, mapped + bystander, arch)[:1 if r.tensor in minor else None]
                              for r in reuse]
                if split:  # split candidates multicast every load over its largest legal group
                    per_access = [[max(options, key=lambda t: t.receivers)] for options in per_access]
                for transfers in _tied_product(reuse, per_access):
                    key = (_placement(view, mapped, split), order, tuple((t.mode, t.group) for t in transfers))
                    if key in seen:
                        continue
                    seen.add(key)
                    if not _lockstep_possible(mapped, transfers, arch.tiling.block_alignment, padded=True):
                        continue
                    candidates.append(Candidate(view, order, mapped, tuple(transfers), free, split))
    return candidates


def _tied_product(reuse: list[AccessReuse], per_access: list[list[Transfer]]):
    """Every choice of one transfer per access, where accesses with the same reuse facts take the same
    transfer: the two halves `x[:, :half]`, `x[:, half:]` of one tensor, or tensors of one size read alike
    by every core (a backward kernel's `grad_out[tile_m, :]`, `x[tile_m, :]`, `s[tile_m, :]`; attention's
    K and V blocks). A kernel with k such accesses beyond the first of each kind has k fewer factors in
    its candidate count, and a mixed choice offers no trade-off the tied ones lack but NoC balance
    between two streams that move the same bytes to the same cores."""
    first: dict[AccessReuse, int] = {}
    owner = [first.setdefault(dataclasses.replace(r, tensor=""), i) for i, r in enumerate(reuse)]
    leaders = sorted(set(owner))
    for choice in itertools.product(*(per_access[i] for i in leaders)):
        picked = dict(zip(leaders, choice))
        yield tuple(picked[owner[i]] if picked[owner[i]].access == r
                    else dataclasses.replace(picked[owner[i]], tensor=r.tensor, access=r)
                    for i, r in enumerate(reuse))


def _lockstep_possible(axes: tuple[AxisMapping, ...], transfers, alignment: int, padded: bool = False) -> bool:
    """Whether every axis whose cores share a multicast can split evenly over them at some block
    size (stage 5's lockstep constraint, `loom.model.constraints`): 64 tiles never split over 26.
    With `padded`, an axis with a block-size variable may split unevenly (its last cores run
    padding blocks); one of a fixed block size (a batch axis) must still split evenly. Without it
    (TT-Lang), block sizes divide their padded extents, as stage 5's domains then do."""
    shared = {axis for t in transfers if t.receivers > 1 for axis in t.access.spatial}
    for a in axes:
        if a.axis not in shared or a.spatial <= 1 or (padded and a.block is not None):
            continue
        if a.block is None:
            counts = [-(-a.extent // (a.fixed_block or 1))]
        else:
            counts = [-(-a.extent // b) for b in block_sizes(a.extent, alignment, exact=not padded)]
        if not any(n % a.spatial == 0 for n in counts):
            return False
    return True


__all__ = ["AxisMapping", "Candidate", "CandidateSet", "Transfer", "enumerate_candidates", "DIM_NAMES"]


def candidate_from_schedule(module: ModuleOp, arch: Arch, view_levels, order, spatial: dict,
                            transfers: dict) -> Candidate:
    """The candidate a schedule describes, checked for legality (any view, any order: schedules
    from users and baselines need not be among the candidates Loom retains)."""
    from loom.schedule import ScheduleError

    grid, labels, syms = grid_axes(module)
    view = View(tuple(tuple(int(f) for f in levels) for levels in view_levels))
    if len(view.levels) != len(arch.grid.dims) or any(o > d for o, d in zip(view.occupancy, arch.grid.dims)):
        raise ScheduleError(f"view {view.name} does not fit the {arch.name} grid {list(arch.grid.dims)}")
    if sorted(order) != sorted(labels):
        raise ScheduleError(f"order {list(order)} must list the grid axes {labels}")
    axes, used = [], set()
    for axis in _axis_extents(module, labels, syms):
        levels = tuple(tuple(int(v) for v in lv) for lv in spatial.get(axis.axis, []))
        for dim, level, size in levels:
            if dim >= len(view.levels) or level >= len(view.levels[dim]) or view.levels[dim][level] != size:
                raise ScheduleError(
                    f"axis {axis.axis}: level ({dim}, {level}) of size {size} is not in view {view.name}")
            if (dim, level) in used:
                raise ScheduleError(f"level ({dim}, {level}) of view {view.name} is given to two axes")
            used.add((dim, level))
        axes.append(AxisMapping(axis.axis, axis.extent, axis.block, axis.fixed_block, levels))
    unused = [(d, lv) for d, f in enumerate(view.levels) for lv, s in enumerate(f) if s > 1 and (d, lv) not in used]
    if unused:
        raise ScheduleError(f"levels {unused} of view {view.name} run no grid axis")
    chosen = []
    for access in access_reuse(grid):
        options = _transfer_options(access, tuple(axes), arch, dominated_too=True)
        unicast = {"mode": "unicast"}
        wanted = transfers.get(access.tensor, unicast) if access.direction == "load" else unicast
        group = tuple(wanted.get("group", (1,) * len(arch.grid.dims)))
        match = [t for t in options if t.mode == wanted["mode"] and (t.group == group or t.mode == "unicast")]
        if not match:
            legal = ", ".join(f"{t.mode} {list(t.group)}" for t in options)
            raise ScheduleError(f"transfer of {access.tensor}: {wanted['mode']} to {list(group)} is not a legal "
                                f"multicast for this mapping (legal: {legal})")
        chosen.append(match[0])
    return Candidate(view, tuple(order), tuple(axes), tuple(chosen), tuple(sorted(syms)))
