"""Host code after a kernel's device loop, run in torch on the simulated results, as Helion runs it.

Helion runs a kernel's statements outside its `hl.tile` loop on the host (`return torch.sum(loss) / n`).
Loom compiles the device loop; this module runs the kernel's function with that loop replaced by the
simulator's results: the tensors the loop writes are filled with them where the loop stood, and the host
code before and after it runs in torch (Helion's eager reference mode, so `hl.specialize` and
`hl.register_block_size` work on the host as they do in Helion). Its time is not simulated.
"""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap
from pathlib import Path

import torch

from loom.errors import SourceLocation, UnsupportedError
from loom.frontend.host_code import is_device_loop, read_host_return

_FILL = "__loom_device_results__"


def host_code_line(kernel: object, outputs: set[str]) -> int | None:
    """The source line from which `loom run` must run `kernel`'s host code to get what it returns: where
    its host code after the device loop starts, or its `def` where it returns tensors other than the loop's
    `outputs` (views of them: `out_flat = out.view(-1)` written, `out` returned); None when it returns the
    loop's tensors themselves."""
    fn = getattr(kernel, "fn", None)
    try:
        lines, first = inspect.getsourcelines(fn)
        path = inspect.getsourcefile(fn)
    except (OSError, TypeError):
        return None
    source = Path(path).read_text().splitlines() if path else []
    def_line = next((first + i for i, text in enumerate(lines) if text.lstrip().startswith(("def ", "async def "))),
                    first)
    host = read_host_return(source, def_line)
    if host.epilogue is not None:
        return host.epilogue
    return def_line if host.names and not outputs <= set(host.names) else None


def run_host_code(kernel: object, args: tuple, results: dict[str, torch.Tensor]) -> object:
    """What `kernel(*args)` returns when its device loop writes `results` (tensor name -> its value)."""
    import helion

    fn = kernel.fn
    path = inspect.getsourcefile(fn)
    lines, first = inspect.getsourcelines(fn)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)
    definition = tree.body[0]
    definition.decorator_list = []
    loops = [i for i, stmt in enumerate(definition.body) if isinstance(stmt, ast.For) and is_device_loop(stmt.iter)]
    loop = definition.body[loops[-1]]
    definition.body[loops[-1]] = ast.copy_location(ast.parse(f"{_FILL}(locals())").body[0], loop)
    ast.fix_missing_locations(tree)
    namespace = dict(fn.__globals__)
    namespace[_FILL] = lambda local: _fill(local, results, SourceLocation(path, loop.lineno, ""))
    exec(compile(tree, path, "exec"), namespace)  # noqa: S102 - the user's own kernel, loop removed
    settings = copy.copy(kernel.settings)
    settings.ref_mode = helion.RefMode.EAGER
    host = helion.Kernel(namespace[definition.name], configs=kernel.configs, settings=settings)
    try:
        return host(*args)
    except UnsupportedError:
        raise
    except Exception as err:  # noqa: BLE001 - the user's host code, reported at the loop it surrounds
        raise UnsupportedError(f"the kernel's host code failed when run in torch around the simulated device loop "
                               f"(Helion's eager reference mode): {type(err).__name__}: {err}",
                               SourceLocation(path, loop.lineno, lines[loop.lineno - first].rstrip())) from err


def _fill(local: dict, results: dict[str, torch.Tensor], at: SourceLocation) -> None:
    for name, value in results.items():
        tensor = local.get(name)
        if not isinstance(tensor, torch.Tensor) or tensor.numel() != value.numel():
            raise UnsupportedError(f"the device loop writes `{name}`, which the host code does not hold as a tensor "
                                   f"of {value.numel()} elements where the loop stands; expected the tensors the loop "
                                   "writes created before it", at)
        tensor.copy_(value.reshape(tensor.shape).to(tensor.dtype))
