"""Architecture descriptions as data: typed schema (`schema.py`) and loading (`load.py`).

Every hardware number lives in a YAML file in `loom/archs/` beside a comment naming its
source; Python code reads them through `load_arch` and never restates them.
"""

from __future__ import annotations

from loom.arch.load import ARCH_DIR, list_archs, load_arch
from loom.arch.schema import Arch

__all__ = ["ARCH_DIR", "Arch", "list_archs", "load_arch"]
