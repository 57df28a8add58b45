"""Errors the simulator reports: a deadlock names every waiting role and what it waits on."""

from __future__ import annotations

from dataclasses import dataclass

from loom.errors import LoomError


@dataclass(frozen=True)
class Wait:
    """One blocked role: where it is and what it waits for."""

    core: tuple[int, ...]
    role: str
    on: str          # "CB" or "semaphore"
    name: str
    wanted: str      # e.g. "4 free tiles", "value == 1"
    available: str   # e.g. "0 free of 4", "value 0"

    def __str__(self) -> str:
        return (f"core {self.core} {self.role}: waits on {self.on} '{self.name}' for {self.wanted}, "
                f"found {self.available}")


class DeadlockError(LoomError):
    """Every unfinished role is blocked and nothing is in flight: the program can never finish."""

    kind = "deadlock"

    def __init__(self, program: str, time: float, waits: list[Wait], finished: int):
        self.waits = waits
        self.time = time
        shown = "\n  ".join(str(w) for w in waits[:24])
        more = f"\n  … and {len(waits) - 24} more" if len(waits) > 24 else ""
        super().__init__(f"program '{program}' deadlocked at cycle {time:.0f}: expected every role to "
                         f"finish, found {len(waits)} role(s) blocked with nothing in flight "
                         f"({finished} finished):\n  {shown}{more}")
