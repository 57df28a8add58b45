"""Typed errors that Loom reports to users.

Every error a user can cause carries a location: the kernel file and line for
problems in a Helion kernel, the field path for problems in an architecture
description. The CLI prints `str(error)` and exits with status 2; anything
else escaping Loom is an internal error.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLocation:
    """A line in a user's file (kernel source, schedule, …)."""

    file: str
    line: int
    code: str = ""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        return f"{where}: {self.code.strip()}" if self.code else where


class LoomError(Exception):
    """Base class of every error Loom reports to a user."""

    kind = "error"

    def __init__(self, message: str, location: SourceLocation | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        if self.location is None:
            return f"{self.kind}: {self.message}"
        return f"{self.location.file}:{self.location.line}: {self.kind}: {self.message}" + (
            f"\n    {self.location.code.strip()}" if self.location.code else ""
        )


class KernelFileError(LoomError):
    """The kernel file does not follow the convention (one kernel, `inputs`, …)."""

    kind = "kernel file error"


class ShapeError(LoomError):
    """A `--shape` name or value the kernel file does not accept."""

    kind = "shape error"


class UnsupportedError(LoomError):
    """The kernel uses something Loom cannot compile yet; the message says what."""

    kind = "unsupported"


class NonAffineIndexError(UnsupportedError):
    """A global-memory index that is not affine in the tile indices."""

    kind = "non-affine index"


class DataDependentIndexError(UnsupportedError):
    """A global-memory index computed from loaded data."""

    kind = "data-dependent index"


class CapacityError(LoomError):
    """The kernel's tensors do not fit the architecture's memory (DRAM)."""

    kind = "capacity error"


class OptionError(LoomError):
    """A command-line option (or the matching Python argument) with a value Loom cannot use."""

    kind = "option error"


class ArchError(LoomError):
    """An architecture description with a missing, wrongly typed or inconsistent field."""

    kind = "architecture error"

    def __init__(self, message: str, file: str = "", field: str = ""):
        self.file = file
        self.field = field
        prefix = ": ".join(p for p in (file, field) if p)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class InternalError(LoomError):
    """A bug in Loom: an unexpected exception, reported with the stage that raised it."""

    kind = "internal error"

    def __init__(self, stage: str, cause: BaseException):
        super().__init__(f"in stage '{stage}': {type(cause).__name__}: {cause}")
        self.stage = stage
        self.cause = cause


class ProgramError(LoomError):
    """A per-core program that is malformed or cannot run (unknown name, bad shape, …)."""

    kind = "program error"


class L1OverflowError(ProgramError):
    """A core's circular buffers and local buffers exceed the architecture's usable L1."""

    kind = "L1 overflow"
