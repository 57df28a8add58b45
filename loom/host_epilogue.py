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
from pathlib import Path

import torch

from loom.errors import SourceLocation, UnsupportedError
from loom.frontend.host_code import def_line_of, device_loops, kernel_definition, read_host_return

_FILL = "__loom_device_results__"


def host_code_line(kernel: object, outputs: set[str]) -> int | None:
    """The source line from which `loom run` must run `kernel`'s host code to get what it returns: where
    its host code after the device loop starts, or its `def` where it returns tensors other than the loop's
    `outputs` (views of them: `out_flat = out.view(-1)` written, `out` returned); None when it returns the
    loop's tensors themselves."""
    source = _kernel_source(getattr(kernel, "fn", None))
    if source is None:
        return None
    _, lines, def_line = source
    host = read_host_return(lines, def_line)
    if host.epilogue is not None:
        return host.epilogue
    return def_line if host.names and not outputs <= set(host.names) else None


def run_host_code(kernel: object, args: tuple, results: dict[str, torch.Tensor],
                  block_sizes: dict[str, int] | None = None, partials: set[str] = frozenset()) -> object:
    """What `kernel(*args)` returns when its device loop writes `results` (tensor name -> its value).
    `block_sizes` (tile label -> size): the ones the device loop ran with, given to the host code's
    `hl.register_block_size` where a grid loop takes its block from one; `partials`: the results laid out for
    the smallest block (`loom.frontend.partials`), of which the host code's tensors take the leading slices."""
    import helion

    fn = kernel.fn
    path, lines, def_line = _kernel_source(fn)
    definition = kernel_definition(lines, def_line)
    definition.decorator_list = []
    at = device_loops(definition)[-1]
    loop = definition.body[at]
    where = SourceLocation(path, loop.lineno, lines[loop.lineno - 1].rstrip())
    if not _registered_block_sizes(definition, loop, block_sizes or {}) and partials:
        raise UnsupportedError(f"`{sorted(partials)[0]}` is sized by a block size that the host code does not take "
                               "from the grid loop Loom compiled; expected `block = hl.register_block_size(…)` in "
                               "the kernel's body, passed as the loop's `block_size`", where)
    definition.body[at] = ast.copy_location(ast.parse(f"{_FILL}(locals())").body[0], loop)
    namespace = dict(fn.__globals__)
    namespace[_FILL] = lambda local: _fill(local, results, where, partials)
    module = ast.fix_missing_locations(ast.Module([definition], type_ignores=[]))
    exec(compile(module, path, "exec"), namespace)  # noqa: S102 - the user's own kernel, loop removed
    settings = copy.copy(kernel.settings)
    settings.ref_mode = helion.RefMode.EAGER
    configs = kernel.configs or [helion.Config()]  # a config, even empty, gives `hl.register_tunable` its default
    host = helion.Kernel(namespace[definition.name], configs=configs, settings=settings)
    try:
        return host(*args)
    except UnsupportedError:
        raise
    except Exception as err:  # noqa: BLE001 - the user's host code, reported at the loop it surrounds
        raise UnsupportedError(f"the kernel's host code failed when run in torch around the simulated device loop "
                               f"(Helion's eager reference mode): {type(err).__name__}: {err}", where) from err


def _kernel_source(fn) -> tuple[str, list[str], int] | None:
    """(file, its lines, the `def` line) of a kernel's function; None where its source cannot be read."""
    try:
        path = inspect.getsourcefile(fn)
    except TypeError:
        return None
    if path is None or not Path(path).is_file():
        return None
    lines = Path(path).read_text().splitlines()
    return path, lines, def_line_of(lines, fn.__code__.co_firstlineno)


def _registered_block_sizes(definition: ast.FunctionDef, loop: ast.For, block_sizes: dict[str, int]) -> bool:
    """Replace `m_block = hl.register_block_size(…)` by the size the device loop ran with, where the loop
    takes its block from it (`for tile in hl.tile(m, block_size=m_block)`, or one entry of a list): Helion's
    eager mode would give the whole dimension, and a per-tile partials tensor sized by it
    (`loom.frontend.partials`) would then not hold the slices the device wrote. Whether one was replaced."""
    chosen: dict[str, int] = {}
    replaced = False
    iterator, targets = loop.iter, loop.target.elts if isinstance(loop.target, ast.Tuple) else [loop.target]
    given = next((k.value for k in getattr(iterator, "keywords", []) if k.arg == "block_size"), None)
    sizes = given.elts if isinstance(given, (ast.List, ast.Tuple)) else [given]
    for target, size in zip(targets, sizes if len(sizes) == len(targets) else []):
        if isinstance(target, ast.Name) and isinstance(size, ast.Name) and target.id in block_sizes:
            chosen[size.id] = block_sizes[target.id]
    for i, statement in enumerate(definition.body):
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id in chosen \
                and "register_block_size" in ast.unparse(statement.value):
            value = ast.Constant(chosen[statement.targets[0].id])
            definition.body[i] = ast.copy_location(ast.Assign(statement.targets, value), statement)
            replaced = True
    return replaced


def _fill(local: dict, results: dict[str, torch.Tensor], at: SourceLocation, partials: set[str]) -> None:
    for name, value in results.items():
        tensor = local.get(name)
        if name in partials and isinstance(tensor, torch.Tensor) and value.dim() == tensor.dim() \
                and all(t <= v for t, v in zip(tensor.shape, value.shape)):
            value = value[tuple(slice(0, t) for t in tensor.shape)]  # the chosen block's slices
        if not isinstance(tensor, torch.Tensor) or tensor.numel() != value.numel():
            raise UnsupportedError(f"the device loop writes `{name}`, which the host code does not hold as a tensor "
                                   f"of {value.numel()} elements where the loop stands; expected the tensors the loop "
                                   "writes created before it", at)
        tensor.copy_(value.reshape(tensor.shape).to(tensor.dtype))
