"""Bad kernels get a typed error naming the kernel file and the offending line."""

from __future__ import annotations

from pathlib import Path

import pytest

import loom
from loom.errors import (
    DataDependentIndexError,
    KernelFileError,
    NonAffineIndexError,
    ShapeError,
    UnsupportedError,
)
from loom.kernel_file import load_kernel_file, parse_shape

BAD = Path(__file__).parent / "bad_kernels"


def marked_line(path: Path) -> int:
    """The line a bad kernel marks with `# LINE:`."""
    return next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "# LINE:" in text)


@pytest.mark.parametrize(
    "name, error",
    [
        ("data_dependent_index", DataDependentIndexError),
        ("non_affine_index", NonAffineIndexError),
        ("unsupported_op", UnsupportedError),
        ("no_tile_loop", UnsupportedError),
        ("mixed_vector_layout", UnsupportedError),
    ],
)
def test_bad_kernel_reports_typed_error_at_its_line(name, error):
    path = BAD / f"{name}.py"
    source = load_kernel_file(path)
    with pytest.raises(error) as info:
        loom.lower(source.kernel, source.example_args())
    assert type(info.value) is error
    assert info.value.location is not None, str(info.value)
    assert Path(info.value.location.file).name == path.name
    assert info.value.location.line == marked_line(path)
    assert f"{path.name}:{marked_line(path)}" in str(info.value)


def test_unsupported_op_is_named():
    source = load_kernel_file(BAD / "unsupported_op.py")
    with pytest.raises(UnsupportedError, match="atan"):
        loom.lower(source.kernel, source.example_args())


def test_kernel_file_without_inputs(tmp_path):
    path = tmp_path / "k.py"
    path.write_text((BAD / "unsupported_op.py").read_text().split("def inputs")[0])
    with pytest.raises(KernelFileError, match="inputs"):
        load_kernel_file(path)


def test_unknown_shape_name_lists_accepted_names():
    source = load_kernel_file(BAD / "unsupported_op.py")
    with pytest.raises(ShapeError, match=r"`Q` is not a size.*M \(default 64\), N \(default 64\)"):
        source.example_args({"Q": 3})


@pytest.mark.parametrize("text", ["M", "M=abc", "M=-4", "=3"])
def test_malformed_shape(text):
    with pytest.raises(ShapeError):
        parse_shape(text)
