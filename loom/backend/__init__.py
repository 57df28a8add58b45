"""Backends: the per-core program form (`program.py`) that the simulator and emitters consume.

`from loom.backend import *` gives the program dataclasses: declarations (`Tensor`, `CB`,
`Buffer`, `Semaphore`, `CoreGroup`, `Program`), index expressions (`Affine`, `cx`, `cy`), and the
instruction set (CB ops, data movement, semaphores, compute ops, `Loop`).
"""

from __future__ import annotations

from loom.backend.program import (
    CB,
    CORE_VARS,
    ROLES,
    Affine,
    Barrier,
    Binary,
    Buffer,
    CbPop,
    CbPush,
    CbReserve,
    CbWait,
    Coord,
    Copy,
    CoreGroup,
    DramRead,
    DramWrite,
    Fill,
    Idx,
    Instr,
    L1OverflowError,
    Loop,
    Mask,
    Matmul,
    Multicast,
    Program,
    ProgramError,
    Reduce,
    Ref,
    RemoteRead,
    Semaphore,
    SemInc,
    SemSet,
    SemWait,
    Tensor,
    Transpose,
    Trips,
    Unary,
    Write,
    core_range,
    cx,
    cy,
    walk,
)

__all__ = [
    "CB", "CORE_VARS", "ROLES", "Affine", "Barrier", "Binary", "Buffer", "CbPop", "CbPush", "CbReserve",
    "CbWait", "Coord", "Copy", "CoreGroup", "DramRead", "DramWrite", "Fill", "Idx", "Instr",
    "L1OverflowError", "Loop", "Mask", "Matmul", "Multicast", "Program", "ProgramError", "Reduce", "Ref",
    "RemoteRead", "SemInc", "SemSet", "SemWait", "Semaphore", "Tensor", "Transpose", "Trips", "Unary", "Write",
    "core_range", "cx", "cy", "walk",
]
