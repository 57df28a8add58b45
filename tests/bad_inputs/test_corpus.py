"""The bad-input corpus (`cases.yaml`): every case fails through the CLI with exit status 2, the
typed error it names, and ONE message giving the location and what was expected and found; a
traceback only with --debug. Unexpected exceptions are internal errors (exit 3) naming the stage."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import loom.cli
from loom.cli import app

HERE = Path(__file__).parent
CASES = yaml.safe_load((HERE / "cases.yaml").read_text())
runner = CliRunner()


def invoke(args: list[str], monkeypatch) -> tuple[object, list[BaseException]]:
    """Run `loom args` in-process; also return the exceptions the CLI reported (its `_fail`)."""
    seen: list[BaseException] = []
    original = loom.cli._fail

    def recording_fail(err, debug):
        seen.append(err)
        return original(err, debug)

    monkeypatch.setattr(loom.cli, "_fail", recording_fail)
    return runner.invoke(app, [str(a) for a in args]), seen


def test_corpus_is_large_and_covers_every_kind_of_input():
    assert len(CASES) >= 30
    assert len({c["id"] for c in CASES}) == len(CASES)
    kinds = {("kernel" if "kernels/" in " ".join(c["args"]) else "arch" if "archs/" in " ".join(c["args"])
              else "schedule" if "--schedule" in c["args"] else "option") for c in CASES}
    assert kinds == {"kernel", "arch", "schedule", "option"}
    for case in CASES:
        for arg in case["args"]:
            if arg.startswith("tests/bad_inputs/") and "absent" not in arg:
                assert (Path.cwd() / arg).is_file(), f"{case['id']}: missing {arg}"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_bad_input_gives_one_clear_typed_error(case, monkeypatch):
    result, seen = invoke(case["args"], monkeypatch)
    output = result.output
    assert result.exit_code == 2, f"exit {result.exit_code}:\n{output}"
    assert len(seen) == 1 and type(seen[0]).__name__ == case["error"], \
        f"expected {case['error']}, found {[type(e).__name__ for e in seen]}: {output}"
    err = seen[0]
    message = str(err)
    assert result.stdout == "", "an error must not print anything on stdout"
    assert output.strip() == message.strip(), "the CLI prints exactly the error's message"
    assert message.count(f"{err.kind}:") == 1, f"one message, not several:\n{message}"
    assert "Traceback" not in output and "WARNING[" not in output
    assert case["location"] in message, f"location {case['location']!r} missing from:\n{message}"
    for text in case.get("expect", []):
        assert text in message, f"{text!r} missing from:\n{message}"
    if re.search(r"\.py:\d+$", case["location"]):  # the kernel file marks the line it expects
        file, line = case["location"].rsplit(":", 1)
        if file.startswith("tests/bad_inputs/"):
            lines = Path(file).read_text().splitlines()
            assert "# LINE" in lines[int(line) - 1], f"{file}:{line} is not the line marked `# LINE`"


def test_traceback_only_with_debug(monkeypatch):
    args = ["lower", "tests/bad_inputs/kernels/unsupported_atan.py"]
    plain, _ = invoke(args, monkeypatch)
    debug, _ = invoke(args + ["--debug"], monkeypatch)
    assert plain.exit_code == debug.exit_code == 2
    assert "Traceback" not in plain.output
    assert "Traceback" in debug.output and "UnsupportedError" in debug.output
    assert plain.output.strip() in debug.output  # the same one message, after the traceback


@pytest.mark.parametrize("command, module, name, stage", [
    (["lower", "examples/matmul.py", "--shape", "M=64,N=64,K=64", "--stage", "concrete"],
     "loom.passes.concretize_buffers", "ConcretizeBuffers.apply", "concrete"),
    (["compile", "examples/matmul.py", "--shape", "M=64,N=64,K=64"],
     "loom.mapping.candidates", "enumerate_candidates", "candidates (stage 4)"),
    (["run", "examples/matmul.py", "--shape", "M=64,N=64,K=64", "--block-sizes", "tile_m=32,tile_n=32,tile_k=32"],
     "loom.run", "build_program", "split (per-core programs)"),
])
def test_unexpected_exception_is_an_internal_error_naming_its_stage(command, module, name, stage, monkeypatch):
    import importlib

    def broken(*args, **kwargs):
        raise KeyError("a bug planted by the test")

    owner = importlib.import_module(module)
    if "." in name:
        cls, attr = name.split(".")
        monkeypatch.setattr(getattr(owner, cls), attr, broken)
    else:
        monkeypatch.setattr(owner, name, broken)
    result, seen = invoke(command, monkeypatch)
    assert result.exit_code == 3, result.output
    assert f"internal error: in stage '{stage}': KeyError" in result.output
    assert "a bug in Loom" in result.output and "Traceback" not in result.output
    debug, _ = invoke(command + ["--debug"], monkeypatch)
    assert debug.exit_code == 3 and "Traceback" in debug.output and "a bug planted by the test" in debug.output
