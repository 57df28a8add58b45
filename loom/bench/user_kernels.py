"""`loom bench FILE.py --shapes ...`: a user's own kernel file and shapes.

A user's first question is "what about my shapes?". Their kernel is compared against TTNN only
where TTNN has the kernel: when it computes what one of the examples with a TTNN baseline computes
(matmul, flash_attention, flash_decode), judged by `baseline_kind`; otherwise its rows carry Loom's
simulated time and model error alone.
"""

from __future__ import annotations

from pathlib import Path

from loom.baselines.tuned_schedules import TTNN_TUNED
from loom.bench.paper import EXAMPLES
from loom.errors import LoomError, ShapeError
from loom.kernel_file import KernelFile, load_kernel_file, parse_shape


def parse_shapes(text: str) -> list[dict[str, int]]:
    """`M=256,N=256,K=256;M=512,N=256,K=128` (or a YAML file holding a list of such mappings) ->
    one dict of sizes per shape."""
    path = Path(text)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        import yaml

        data = yaml.safe_load(path.read_text())
        if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
            raise ShapeError(f"--shapes {path}: expected a YAML list of mappings such as {{M: 256, N: 256, K: 256}}")
        return [parse_shape(",".join(f"{k}={v}" for k, v in d.items())) for d in data]
    shapes = [parse_shape(part) for part in text.split(";") if part.strip()]
    if not shapes:
        raise ShapeError("--shapes: expected NAME=VALUE,...;NAME=VALUE,... with at least one shape")
    return shapes


def baseline_kind(source: KernelFile) -> tuple[str | None, str]:
    """(the TTNN kernel `source` computes, why), or (None, why not). A kernel is the example's kind
    when it takes the same sizes, its `inputs()` gives arguments of the example's shapes and dtypes
    at its default sizes, and its `reference()` agrees with the example's on them."""
    if source.reference is None:
        return None, "no reference() to tell what the kernel computes"
    sizes = source.size_names()
    args = None
    for kind in TTNN_TUNED:
        example = load_kernel_file(EXAMPLES / f"{kind}.py")
        if set(example.size_names()) != set(sizes):
            continue
        try:
            args = args or source.example_args()
            theirs = example.example_args(sizes)
            if [(a.shape, a.dtype) for a in args] != [(a.shape, a.dtype) for a in theirs]:
                continue
            if _agree(source.reference(*args), example.reference(*args)):
                return kind, f"computes what examples/{kind}.py computes"
        except (LoomError, AttributeError, RuntimeError, TypeError, ValueError):
            continue
    return None, "computes none of matmul, flash_attention, flash_decode (by its sizes, inputs and reference)"


def _agree(ours, theirs) -> bool:
    import torch

    return (isinstance(ours, torch.Tensor) and isinstance(theirs, torch.Tensor) and ours.shape == theirs.shape
            and torch.allclose(ours.float(), theirs.float(), rtol=2e-2, atol=2e-2))
