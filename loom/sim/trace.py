"""Chrome / Perfetto trace output: one process per core, one thread per engine (reader, compute,
writer). Compute ops and data-movement issue time are slices on the engine's thread, waits on a
CB or semaphore are "wait" slices, and each NoC transfer is an async slice from issue to
completion (Perfetto draws those on their own tracks under the core). Times are microseconds.
Open the file at https://ui.perfetto.dev.
"""

from __future__ import annotations

import json
from pathlib import Path

THREADS = ("reader", "compute", "writer")


class TraceRecorder:
    """Collects events while simulating; `events()` gives Chrome trace JSON records."""

    def __init__(self, clock_ghz: float, cores: list[tuple[int, ...]], limit: int = 2_000_000):
        self.us = 1.0 / (clock_ghz * 1000.0)  # microseconds per cycle
        self.cores = cores
        self.records: list[tuple] = []
        self.limit = limit
        self.dropped = 0
        self._async_id = 0

    def slice(self, core: int, thread: int, name: str, start: float, end: float, cat: str = "op") -> None:
        """A complete event on `core`'s engine `thread` (an index into THREADS)."""
        if len(self.records) >= self.limit:
            self.dropped += 1
            return
        self.records.append(("X", core, thread, name, start, end, cat))

    def transfer(self, core: int, thread: int, name: str, start: float, end: float) -> None:
        """An async NoC transfer issued by `core`'s engine `thread`."""
        if len(self.records) >= self.limit:
            self.dropped += 1
            return
        self._async_id += 1
        self.records.append(("A", core, thread, name, start, end, self._async_id))

    def events(self) -> list[dict]:
        """All records as Chrome trace events, metadata first."""
        out: list[dict] = []
        for pid, coord in enumerate(self.cores):
            out.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                        "args": {"name": f"core {coord}"}})
            out.append({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0,
                        "args": {"sort_index": pid}})
            for tid, name in enumerate(THREADS):
                out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}})
        us = self.us
        for rec in self.records:
            kind, pid, tid, name, start, end = rec[:6]
            if kind == "X":
                out.append({"ph": "X", "name": name, "cat": rec[6], "pid": pid, "tid": tid,
                            "ts": start * us, "dur": max(end - start, 0.0) * us})
            else:
                ident = rec[6]
                out.append({"ph": "b", "name": name, "cat": "noc", "pid": pid, "tid": tid, "id": ident,
                            "ts": start * us})
                out.append({"ph": "e", "name": name, "cat": "noc", "pid": pid, "tid": tid, "id": ident,
                            "ts": end * us})
        return out

    def write(self, path: str | Path) -> Path:
        """Write the trace as JSON; returns the path."""
        path = Path(path)
        path.write_text(json.dumps({"traceEvents": self.events(), "displayTimeUnit": "ns",
                                    "otherData": {"dropped_events": self.dropped}}))
        return path
