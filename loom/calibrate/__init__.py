"""`loom calibrate`: the simulator against published hardware measurements.

Reads ground-truth files in the shared format (`points.py`), expresses each point as programs
loom.sim runs (`gemm.py`, `data_movement.py`, `sdpa.py`), simulates every distinct program once
(`run.py`) and compares predicted with measured per point and per group (`summary.py`). A point
Loom cannot express is skipped with a named reason; only a malformed file is an error.
"""

from __future__ import annotations

from loom.calibrate.common import Row, Skip
from loom.calibrate.points import CalibrationFileError, Point, load_points
from loom.calibrate.run import KERNELS, calibrate
from loom.calibrate.summary import point_table, skips, summarise, summary_table

__all__ = ["KERNELS", "CalibrationFileError", "Point", "Row", "Skip", "calibrate", "load_points",
           "point_table", "skips", "summarise", "summary_table"]
