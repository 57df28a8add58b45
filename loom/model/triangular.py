"""The latency model's loops to an enclosing tile's end (`hl.tile(0, tile_m.end)`, `Until`): their trips
grow (or, from the tile's start, shrink) with the outer block; the position masks run only on the key
blocks the diagonal crosses, and the score ops there only on live tiles (`loom.backend.live_tiles`).
Mixed into `loom.model.latency.LatencyModel`, whose state (`tile`, `result`, `diagonal_*`) it reads."""

from __future__ import annotations

from functools import lru_cache

from loom.model import expr as E
from loom.model.heg import For, Primitive, dim_expr


class TriangularLoops:
    """The `LatencyModel` methods of loops to a tile's end."""

    def trips_until(self, loop: For) -> E.Expr:
        """The average trips of a loop to the enclosing tile's end, rounded up (`twice_trips_until` / 2)."""
        return E.ceil_div(self.twice_trips_until(loop), 2, label=f"trips of {loop.name}")

    def diagonal(self, loop: For, cycles: E.Expr, repeat: E.Expr) -> E.Expr:
        """A loop to the enclosing tile's end with its position masks added back: of the key blocks query
        block i runs, only the r = ceil(outer block / block) that cross the diagonal are masked (one when
        the key block is the larger); the cores skip the mask on the others, kept whole. The ops on the
        score blocks skip the tiles masked whole (`loom.backend.live_tiles`): of a query block's a rows
        of tiles, against key blocks b tiles wide, a (max(a, b) - 1) / 2 tiles on average (the upper
        triangle of an a x a diagonal, and a key block's reach past the queries when b > a), each at the
        score ops' cost of one tile (`tile_cost`), when the loop's `live` knob is on."""
        masks = E.mul(self.diagonal_blocks(loop), E.add(*self.diagonal_masks), label="position masks on the diagonal")
        self.result.categories["compute"].append(E.mul(repeat, masks))
        a, b = (E.ceil_div(dim_expr(d), self.tile[0]) for d in self.diagonal_block)
        per_tile = sum(self.tile_cost(c) for c in self.diagonal_live + self.diagonal_masks)
        skipped = E.ceil_div(E.mul(per_tile, a, E.add(E.maximum(a, b), -1)), 2)
        skipped = E.select(E.Knob(loop.live_knob), skipped, E.Const(0),  # off: TTNN's whole diagonal block
                           label="dead tiles on the diagonal")
        self.result.categories["compute"].append(E.mul(-1, repeat, skipped))
        return E.add(cycles, masks, E.mul(-1, skipped), label=f"for {loop.name}")

    def tile_cost(self, price: E.Expr) -> int:
        """What one more tile of the score block adds to a score op's `price`: its price with the key block
        two tiles wide less one tile wide, the query block one tile tall (a constant, so that the solver
        multiplies it by block sizes instead of dividing by them); 0 for a price of other block sizes."""
        outer, own = self.diagonal_block
        if not (isinstance(outer, str) and isinstance(own, str)):
            return 0
        return _one_tile_more(price, outer, own, tuple(self.tile))

    @staticmethod
    def diagonal_blocks(loop: For) -> E.Expr:
        """The key blocks of one outer block that cross the diagonal: r = ceil(outer block / block)."""
        return E.ceil_div(dim_expr(loop.until.block), dim_expr(loop.trips[1]))

    @classmethod
    def twice_trips_until(cls, loop: For) -> E.Expr:
        """Twice the average trips, a whole number. A loop to the enclosing tile's end runs
        ceil((i + 1) a / b) times in that tile's block i, a the outer block and b its own (one divides
        the other: `build_model` constrains it); over outer blocks i .. j that averages
        ((i + j + 1) a / b + r) / 2, r = ceil(a / b) the blocks on the diagonal (exact when b divides a,
        and over whole groups of b / a outer blocks when a divides b). A core runs a contiguous range of
        q = ceil(n / c) of the n outer blocks; the last core's, the busiest, average
        ((2n - q) a / b + r) / 2 trips. With the balance knob on, every core runs pairs i, n - 1 - i:
        (n a / b + r) / 2 on average. A loop from the enclosing tile's start to its own extent runs
        ceil((E - i a) / b) times, zero once i a >= E (`from_twice_trips`)."""
        until, (_, block) = loop.until, loop.trips
        outer, block = dim_expr(until.block), dim_expr(block)
        n = E.ceil_div(until.outer_blocks_extent, outer)
        q = E.ceil_div(n, until.spatial) if until.spatial > 1 else n
        diagonal = cls.diagonal_blocks(loop)
        if until.from_start:
            ranged = E.add(cls.from_twice_trips(until, q, outer, block), diagonal)
            balanced = E.add(cls.from_twice_trips(until, n, outer, block), diagonal)
        else:
            ranged = E.add(E.ceil_div(E.mul(E.add(E.mul(2, n), E.mul(-1, q)), outer), block), diagonal)
            balanced = E.add(E.ceil_div(E.mul(n, outer), block), diagonal)
        return ranged if until.spatial == 1 else E.select(E.Knob(until.knob), balanced, ranged)

    @staticmethod
    def from_twice_trips(until, count: E.Expr, outer: E.Expr, block: E.Expr) -> E.Expr:
        """Twice the average trips of a loop from the enclosing tile's start over outer blocks 0 .. count - 1
        (the first core's, the busiest, or all n of them, in pairs): of N = ceil(E / a) blocks of its own
        extent only k = min(count, N) run, N - i of the loop's a-wide steps each, so twice the average is
        k (2N - k + 1) a / (count b)."""
        own = E.ceil_div(until.extent, outer)
        k = E.minimum(count, own)
        steps = E.mul(k, E.add(E.mul(2, own), E.mul(-1, k), 1))
        return E.ceil_div(E.mul(steps, outer), E.mul(count, block))

    def on_scores(self, prim: Primitive) -> bool:
        """Whether `prim` works on a score block of the loop to a tile's end (outer block x own block: its
        output, or a matmul's `a`), the ops that run on live tiles there; not a transpose."""
        def scores(dims: tuple) -> bool:
            return tuple(dims[-2:]) == self.diagonal_block
        if prim.kind == "matmul":
            return scores(prim.dims[0]) or scores((prim.dims[0][-2], prim.dims[1][-1]))
        return prim.kind in ("eltwise", "reduce", "fill", "copy") and bool(prim.dims) and scores(prim.dims[0])


@lru_cache(maxsize=4096)
def _one_tile_more(price: E.Expr, outer: str, own: str, tile: tuple[int, int]) -> int:
    """`TriangularLoops.tile_cost`, once per price (the candidates of a kernel share their score ops' prices)."""
    try:
        one, two = (E.evaluate(price, {outer: tile[0], own: n * tile[1]}) for n in (1, 2))
    except KeyError:
        return 0
    return max(0, two - one)
