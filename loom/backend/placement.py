"""Row-major placement: per-core programs built for a virtual grid, run on the real one.

TTNN lays the cores of its attention kernels out row-major over the worker grid (core i at
(i mod X, i div X)) and so uses, say, 128 of Blackhole's 13x10 cores, which no rectangle of the
grid holds. Loom's views are rectangles, so such a baseline is compiled for a virtual grid shaped
by its own core split (`virtual_arch`) and its programs are then placed core by core, in the same
row-major order, on the real grid (`place_row_major`). That is only sound for programs whose
cores never talk to each other: placement refuses multicasts, core-to-core writes and reads, and
semaphores, whose coordinates would no longer name the right cores.
"""

from __future__ import annotations

from dataclasses import replace
from math import prod

from loom.arch import Arch
from loom.backend.program import (
    ROLES,
    Multicast,
    Program,
    ProgramError,
    RemoteRead,
    SemInc,
    SemSet,
    SemWait,
    Write,
    walk,
)

_BETWEEN_CORES = (Multicast, Write, RemoteRead, SemInc, SemSet, SemWait)


def virtual_arch(arch: Arch, dims: tuple[int, ...]) -> Arch:
    """`arch` with a worker grid of `dims` (as many cores or fewer), named after both."""
    if prod(dims) > arch.grid.num_cores or len(dims) != len(arch.grid.dims):
        raise ProgramError(f"a virtual grid {list(dims)} must have {len(arch.grid.dims)} dims and at most the "
                           f"{arch.grid.num_cores} cores of {arch.name}")
    name = f"{arch.name}@{'x'.join(map(str, dims))}"
    return arch.model_copy(update={"name": name, "grid": arch.grid.model_copy(update={"dims": list(dims)})})


def place_row_major(program: Program, virtual_dims: tuple[int, ...], arch: Arch) -> Program:
    """`program` (built for a grid of `virtual_dims`) with core i of the virtual grid, counted
    x fastest, on core i of `arch`'s grid, counted the same way."""
    for group in program.groups:
        for role in ROLES:
            for ins in walk(group.role(role)):
                if isinstance(ins, _BETWEEN_CORES):
                    raise ProgramError(f"{group.label}: a {type(ins).__name__} names other cores by their "
                                       "coordinates; only programs whose cores work alone can be placed row-major")

    def place(coord: tuple[int, ...]) -> tuple[int, ...]:
        index = 0
        for c, n in zip(reversed(coord), reversed(virtual_dims)):
            index = index * n + c
        out = []
        for n in arch.grid.dims:
            index, c = divmod(index, n)
            out.append(c)
        return tuple(out)

    groups = tuple(replace(g, cores=tuple(place(c) for c in g.cores),
                           name=f"core {place(g.cores[0])}" if len(g.cores) == 1 else g.name)
                   for g in program.groups)
    return replace(program, arch=arch.name, groups=groups)
