"""The compute role's handler: operand checks, cost (compute.py), and functional execution.

An operand `Ref` names a CB or a local buffer. Inputs are read from a CB's front, outputs go to
a CB's back (the accumulator of `Matmul` is an output); a CB region is seen as a block of the CB's
declared shape. Every execution checks that the tiles a compute op touches are visible (front)
or free (back), which catches a missing `CbWait`/`CbReserve` in timing mode too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from loom.backend.program import Live, Mask, Matmul, ProgramError, Ref
from loom.sim.compute import apply, op_stages, operands, skips
from loom.sim.data import block_to_matrix, matrix_to_block, quantize

if TYPE_CHECKING:
    from loom.sim.engine import CoreState, Role


class ComputeMixin:
    """The compute-op handler (mixed into `Simulator`)."""

    def _shape(self: Any, core: CoreState, ref: Ref) -> tuple[int, int]:
        cb = core.cbs.get(ref.name)
        if cb is not None:
            drows, dcols = cb.rows, cb.cols
        else:
            decl = next((b for b in core.group.buffers if b.name == ref.name), None)
            if decl is None:
                raise ProgramError(f"core {core.coord}: expected a CB or buffer named '{ref.name}'")
            drows, dcols = decl.rows, decl.cols
        rows = ref.rows if ref.rows is not None else drows - (0 if ref.row.terms else ref.row.const)
        cols = ref.cols if ref.cols is not None else dcols - (0 if ref.col.terms else ref.col.const)
        return rows, cols

    def _dtype(self: Any, core: CoreState, ref: Ref) -> str:
        cb = core.cbs.get(ref.name)
        return cb.dtype if cb is not None else core.buf_dtypes[ref.name]

    def _prepare(self: Any, core: CoreState, ins: Any, live: int | None = None) -> tuple[tuple, list]:
        """Cost and operand layout of `ins` on `core`'s group (with `live` of its block's tiles live),
        computed once."""
        shape = lambda r: self._shape(core, r)  # noqa: E731
        stages = op_stages(self.arch, ins, shape, lambda r: self._dtype(core, r), live)
        ins_refs, out_refs = operands(ins)
        local = {b.name for b in core.group.buffers}
        accumulator = ins.acc.name if isinstance(ins, Matmul) else None  # stays in the dest register
        reads = tuple(r.name for r in ins_refs if r.name in local and r.name != accumulator)
        writes = tuple(r.name for r in out_refs if r.name in local)
        checks = []
        for ref, out in [(r, False) for r in ins_refs] + [(r, True) for r in out_refs]:
            rows, cols = shape(ref)
            cb = core.cbs.get(ref.name)
            if cb is not None:
                checks.append((ref, out, rows, cols))
            else:
                b = next(b for b in core.group.buffers if b.name == ref.name)
                checks.append((ref, None, rows, cols, b.rows, b.cols))
        return (stages, reads, writes), checks

    def _compute(self: Any, role: Role, ins: Any) -> float:
        core, env = role.core, role.env
        dead, live = self._dead(core, env, ins.live) if getattr(ins, "live", None) is not None else (None, None)
        key = (id(core.group), id(ins), live)
        prepared = self.compute_cache.get(key)
        if prepared is None:
            prepared = self.compute_cache[key] = self._prepare(core, ins, live)
        (stages, reads, writes), checks = prepared
        for check in checks:
            ref, out, rows, cols = check[:4]
            r0, c0 = ref.row.eval(env), ref.col.eval(env)
            if out is None:  # local buffer: stay inside it
                if r0 < 0 or c0 < 0 or r0 + rows > check[4] or c0 + cols > check[5]:
                    raise ProgramError(f"core {core.coord} compute, {type(ins).__name__}: expected "
                                       f"'{ref.name}' sub-block inside {check[4]}x{check[5]} tiles, found "
                                       f"rows {r0}+{rows}, cols {c0}+{cols}")
                continue
            cb = core.cbs[ref.name]
            need = (r0 + rows - 1) * cb.cols + c0 + cols
            have = cb.cap - (cb.head - cb.popped) if out else cb.pushed - cb.popped
            if c0 < 0 or r0 < 0 or c0 + cols > cb.cols or need > have:
                side = "back (free)" if out else "front (visible)"
                hint = "CbReserve" if out else "CbWait"
                raise ProgramError(f"core {core.coord} compute, {type(ins).__name__}: touches {need} tiles "
                                   f"at the {side} of CB '{cb.name}' ({cb.rows}x{cb.cols} blocks), expected "
                                   f"at most {have} (missing {hint}?)")
        if isinstance(ins, Mask) and skips(ins, env, *self._shape(core, ins.dst), self.tile):
            return self.now
        if self.functional:
            apply(ins, lambda r, out=False: self._read(core, env, r, out),
                  lambda r, m: self._write_ref(core, env, r, m), lambda r: self._shape(core, r), self.tile, env,
                  dead)
        end = role.threads.run(stages, self.now, reads, writes)
        role.busy += stages.items * stages.math + stages.setup  # the math thread's work
        if self.tracer:
            self.tracer.slice(core.index, role.thread, type(ins).__name__, self.now, end)
        return end

    def _dead(self: Any, core: CoreState, env: dict[str, int], live: Live) -> tuple[np.ndarray | None, int | None]:
        """(the dead elements, the live tile count) of an op on live tiles at `env`; (None, None) when
        every tile is live."""
        key = ("live", id(core.group), id(live), live.row_start.eval(env), live.col_start.eval(env))
        known = self.compute_cache.get(key)
        if known is None:
            rows, cols = self._shape(core, Ref(live.buffer))
            tiles = np.array(live.tiles(env, rows, cols, self.tile), dtype=bool)
            known = self.compute_cache[key] = (None, None) if tiles.all() else (
                ~np.kron(tiles, np.ones(self.tile, dtype=bool)), int(tiles.sum()))
        return known

    def _slots(self: Any, core: CoreState, env: dict[str, int], ref: Ref,
               out: bool) -> tuple[np.ndarray, int, int]:
        rows, cols = self._shape(core, ref)
        r0, c0 = ref.row.eval(env), ref.col.eval(env)
        cb = core.cbs.get(ref.name)
        width = cb.cols if cb is not None else next(b.cols for b in core.group.buffers if b.name == ref.name)
        pos = ((r0 + np.arange(rows))[:, None] * width + (c0 + np.arange(cols))[None, :]).reshape(-1)
        if cb is not None:
            pos = (pos + (cb.head if out else cb.popped)) % cb.cap
        return pos, rows, cols

    def _read(self: Any, core: CoreState, env: dict[str, int], ref: Ref, out: bool = False) -> np.ndarray:
        pos, rows, cols = self._slots(core, env, ref, out)
        cb = core.cbs.get(ref.name)
        store = cb.data if cb is not None else core.bufs[ref.name]
        return block_to_matrix(store[pos], rows, cols)

    def _write_ref(self: Any, core: CoreState, env: dict[str, int], ref: Ref, m: np.ndarray) -> None:
        pos, rows, cols = self._slots(core, env, ref, out=True)
        cb = core.cbs.get(ref.name)
        store = cb.data if cb is not None else core.bufs[ref.name]
        store[pos] = matrix_to_block(quantize(m, self._dtype(core, ref)), rows, cols)
