"""Row-major placement: per-core programs built for a virtual grid, run on the real one.

TTNN lays the cores of its attention kernels out row-major over the worker grid (core i at
(i mod X, i div X)) and so uses, say, 128 of Blackhole's 13x10 cores, which no rectangle of the
grid holds. Loom's views are rectangles, so such a baseline is compiled for a virtual grid shaped
by its own core split (`virtual_arch`) and its programs are then placed core by core, in the same
row-major order, on the real grid (`place_row_major`). The cores a core writes to, reads from or
signals are placed the same way (TTNN's K/V chains forward between neighbours in that order); a
multicast (or semaphore multicast) is kept only when its rectangle lands on a rectangle of the
real grid (a chain within one row), and refused otherwise.
"""

from __future__ import annotations

from dataclasses import replace
from math import prod

from loom.arch import Arch
from loom.backend.program import (
    ROLES,
    Affine,
    Loop,
    Multicast,
    Program,
    ProgramError,
    RemoteRead,
    SemInc,
    SemSet,
    Write,
    core_range,
)


def virtual_arch(arch: Arch, dims: tuple[int, ...]) -> Arch:
    """`arch` with a worker grid of `dims` (as many cores or fewer), named after both."""
    if prod(dims) > arch.grid.num_cores or len(dims) != len(arch.grid.dims):
        raise ProgramError(f"a virtual grid {list(dims)} must have {len(arch.grid.dims)} dims and at most the "
                           f"{arch.grid.num_cores} cores of {arch.name}")
    name = f"{arch.name}@{'x'.join(map(str, dims))}"
    update = {"name": name, "grid": arch.grid.model_copy(update={"dims": list(dims)})}
    if arch.noc.routers is not None:  # the model prices the virtual grid with the banks on its edges
        update["noc"] = arch.noc.model_copy(update={"routers": None, "worker_routers": None})
        update["dram"] = arch.dram.model_copy(update={
            "bank_positions": [_on_edge(arch, p, dims) for p in arch.dram.bank_positions],
            "noc1_bank_positions": None if arch.dram.noc1_bank_positions is None else
            [_on_edge(arch, p, dims) for p in arch.dram.noc1_bank_positions]})
    return arch.model_copy(update=update)


def _on_edge(arch: Arch, router: list[int], dims: tuple[int, ...]) -> list[int]:
    """A bank endpoint at router coordinate `router` as a position beside a virtual grid of `dims`: left
    of it (x = -1) when its column lies left of the workers' middle, else right (x = dims[0]); along y at
    the virtual row of the nearest worker row (an approximation: the virtual grid is not on the routers;
    the simulator runs the placed programs on the real ones)."""
    columns, rows = arch.noc.worker_routers
    x = -1 if router[0] < (columns[0] + columns[-1]) / 2 else dims[0]
    nearest = min(range(len(rows)), key=lambda i: abs(rows[i] - router[1]))
    return [x, min(nearest, dims[1] - 1)]


def place_row_major(program: Program, virtual_dims: tuple[int, ...], arch: Arch) -> Program:
    """`program` (built for a grid of `virtual_dims`) with core i of the virtual grid, counted
    x fastest, on core i of `arch`'s grid, counted the same way; so are the cores it names."""

    def place(coord: tuple) -> tuple[int, ...]:
        coord = place_in_virtual(coord)
        if not all(isinstance(c, int) for c in coord):
            raise ProgramError(f"a core coordinate {coord} is not a constant; only constant ones can be placed")
        index = 0
        for c, n in zip(reversed(coord), reversed(virtual_dims)):
            index = index * n + c
        out = []
        for n in arch.grid.dims:
            index, c = divmod(index, n)
            out.append(c)
        return tuple(out)

    def place_in_virtual(coord: tuple) -> tuple[int, ...]:
        return tuple(c.const if isinstance(c, Affine) and not c.terms else c for c in coord)

    def rect(lo: tuple, hi: tuple, label: str) -> tuple[tuple, tuple]:
        placed = {place(c) for c in core_range(place_in_virtual(lo), place_in_virtual(hi))}
        new_lo, new_hi = tuple(map(min, zip(*placed))), tuple(map(max, zip(*placed)))
        if placed != set(core_range(new_lo, new_hi)):
            raise ProgramError(f"{label}: a multicast to {lo}..{hi} does not land on a rectangle of the real grid "
                               "when its cores are placed row-major")
        return new_lo, new_hi

    def placed_ins(ins, label: str):
        if isinstance(ins, Loop):
            return replace(ins, body=tuple(placed_ins(i, label) for i in ins.body))
        if isinstance(ins, Write):
            return replace(ins, dst=place(ins.dst))
        if isinstance(ins, RemoteRead):
            return replace(ins, src=place(ins.src))
        if isinstance(ins, (SemInc, SemSet)) and ins.core is not None:
            return replace(ins, core=place(ins.core))
        if isinstance(ins, (Multicast, SemSet)) and ins.lo is not None:
            lo, hi = rect(ins.lo, ins.hi, label)
            return replace(ins, lo=lo, hi=hi)
        return ins

    groups = tuple(replace(g, cores=tuple(place(c) for c in g.cores),
                           name=f"core {place(g.cores[0])}" if len(g.cores) == 1 else g.name,
                           **{role: tuple(placed_ins(i, g.label) for i in g.role(role)) for role in ROLES})
                   for g in program.groups)
    return replace(program, arch=arch.name, groups=groups)
