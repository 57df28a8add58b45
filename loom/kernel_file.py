"""Kernel files: the convention users follow for their own kernels.

A kernel file is an ordinary Python module with
- exactly one `@helion.kernel` function,
- `inputs(**sizes)` returning the example arguments; every size is a keyword
  with a small default, and those keyword names are what `--shape` sets,
- optionally `reference(*args)` in plain torch, used by checks.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import re
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from loom.errors import KernelFileError, ShapeError, SourceLocation


@dataclass
class KernelFile:
    path: str
    kernel: object
    inputs: Callable
    reference: Callable | None

    @property
    def name(self) -> str:
        return self.kernel.fn.__name__

    def size_names(self) -> dict[str, object]:
        """The sizes `--shape` may set, with their defaults."""
        return {
            name: p.default
            for name, p in inspect.signature(self.inputs).parameters.items()
            if isinstance(p.default, int) and not isinstance(p.default, bool)
        }

    def example_args(self, sizes: dict[str, int] | None = None, meta: bool = False) -> tuple:
        """The example arguments; `meta=True` builds them without data (shapes and dtypes only),
        enough to compile and to simulate timing at any size."""
        known = self.size_names()
        for name in sizes or {}:
            if name not in known:
                raise ShapeError(
                    f"`{name}` is not a size of {Path(self.path).name}; it accepts "
                    + ", ".join(f"{n} (default {d})" for n, d in known.items())
                )
        import torch

        try:
            with torch.device("meta") if meta else contextlib.nullcontext():
                args = self.inputs(**(sizes or {}))
        except Exception as err:  # noqa: BLE001 - the user's own code failed: say where
            call = ", ".join(f"{n}={v}" for n, v in {**known, **(sizes or {})}.items())
            raise KernelFileError(f"inputs({call}) raised {type(err).__name__}: {err}; expected it to return "
                                  "the example arguments", _user_frame(err, self.path)) from err
        return tuple(args) if isinstance(args, (tuple, list)) else (args,)


def load_kernel_file(path: str | Path) -> KernelFile:
    path = Path(path)
    if not path.is_file():
        raise KernelFileError(f"kernel file {path} does not exist")
    try:
        namespace = _run_module(path)
    except SyntaxError as err:
        raise KernelFileError(f"syntax error: {err.msg}", SourceLocation(str(path), err.lineno or 1)) from err
    except Exception as err:  # noqa: BLE001 - the module body is the user's code: say where it failed
        raise KernelFileError(f"running the kernel file raised {type(err).__name__}: {err}",
                              _user_frame(err, path)) from err
    # One kernel may have several names (`geglu = _geglu`): count objects, not names.
    kernels = list({id(v): v for v in namespace.values() if type(v).__name__ == "Kernel" and hasattr(v, "bind")}
                   .values())
    if len(kernels) != 1:
        kernels.sort(key=lambda k: k.fn.__code__.co_firstlineno)
        found = ", ".join(f"{k.fn.__name__} (line {k.fn.__code__.co_firstlineno})" for k in kernels) or "none"
        second = SourceLocation(str(path), kernels[1].fn.__code__.co_firstlineno) if kernels else None
        raise KernelFileError(f"{path} must define exactly one @helion.kernel function; expected 1, found "
                              f"{len(kernels)}: {found}", second)
    inputs = namespace.get("inputs")
    if not callable(inputs):
        raise KernelFileError(
            f"{path} has no `inputs(**sizes)` function returning example arguments",
            SourceLocation(str(path), kernels[0].fn.__code__.co_firstlineno),
        )
    reference = namespace.get("reference")
    return KernelFile(str(path), kernels[0], inputs, reference if callable(reference) else None)


def _run_module(path: Path) -> dict:
    """Run the kernel file as a module registered in `sys.modules`, so that code looking a function's globals
    up by its module name (Helion resolves a kernel's module-level constants and helpers that way) finds them."""
    name = "loom_kernel_" + re.sub(r"\W", "_", path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return vars(module)


def _user_frame(err: BaseException, path: str | Path) -> SourceLocation:
    """The innermost line of the kernel file in the traceback of `err` (the def line if none)."""
    target = Path(path).resolve()
    line = 0
    for frame, lineno in traceback.walk_tb(err.__traceback__):
        if Path(frame.f_code.co_filename).resolve() == target:
            line = lineno
    code = ""
    if line:
        lines = target.read_text().splitlines()
        code = lines[line - 1] if 0 < line <= len(lines) else ""
    return SourceLocation(str(path), line or 1, code)


def parse_shape(text: str | None) -> dict[str, int]:
    """`M=2048,N=256,K=256` → {"M": 2048, "N": 256, "K": 256}."""
    sizes: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in (text or "").split(","))):
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ShapeError(f"`{item}` in --shape is not NAME=VALUE")
        try:
            number = int(value)
        except ValueError:
            raise ShapeError(f"--shape {name}={value}: expected a positive integer, found `{value}`") from None
        if number <= 0:
            raise ShapeError(f"--shape {name}={value}: expected a positive integer, found {number}")
        sizes[name.strip()] = number
    return sizes
