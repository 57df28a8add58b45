"""Run every kernel file of a directory through `loom run FILE --check` and print what happened to each.

This is the measurement behind issue 17 ("1 of 48 of Helion's own examples"): point it at a directory of
kernel files (one @helion.kernel each, inputs(), reference(); Helion's examples turned into kernel files by
a local harness, not kept in this repository) and it prints one row per file:

    kernel | outcome | first line of the message

Outcomes: `pass` (exit 0), `refusal` (exit 2: a located UnsupportedError or other user-facing error),
`mismatch` (exit 2: compiled and simulated, but the numbers differ from reference()),
`internal` (exit 3, or a Python traceback: a bug in Loom), `timeout`, `other` (any other exit status).
Files whose name starts with `gemm__` are counted apart (the GEMM/attention family of the issue).

    .venv/bin/python benchmarks/helion_examples.py DIR [--arch wormhole_n150] [--timeout 180] [--markdown]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Loom's message (`file.py:LINE: kind: …`, or an error without a location), not Helion's warnings before it
_MESSAGE = re.compile(r"\.py:\d+: |^[a-z -]*(error|unsupported)\b", re.IGNORECASE)


def run_one(path: Path, arch: str, timeout: float) -> tuple[str, str, float]:
    """(outcome, first line of the message, seconds) for one kernel file."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("HELION_INTERPRET", None)
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "loom.cli", "run", str(path), "--check", "--arch", arch],
                              capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return "timeout", f"no answer within {timeout:.0f} s", time.perf_counter() - start
    seconds = time.perf_counter() - start
    text = (proc.stderr or "") + (proc.stdout or "")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if "Traceback (most recent call last)" in text:
        last = next((line for line in reversed(lines) if not line.startswith(("File ", "^", "~"))), "")
        return "internal", last, seconds
    if proc.returncode == 0:
        return "pass", next((line for line in lines if "check" in line), lines[-1] if lines else ""), seconds
    first = next((line for line in lines if _MESSAGE.search(line)), lines[0] if lines else f"exit {proc.returncode}")
    if proc.returncode == 2:
        return ("mismatch" if "numerical mismatch" in first else "refusal"), first, seconds
    if proc.returncode == 3:
        return "internal", first, seconds
    return "other", f"exit {proc.returncode}: {first}", seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--arch", default="wormhole_n150")
    parser.add_argument("--timeout", type=float, default=180.0)
    parser.add_argument("--only", default="", help="run only files whose name contains this text")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()

    files = sorted(p.resolve() for p in args.directory.glob("*.py") if args.only in p.name)
    rows = []
    for path in files:
        outcome, message, seconds = run_one(path, args.arch, args.timeout)
        rows.append((path.stem, outcome, message))
        if not args.markdown:
            print(f"{path.stem:60s} {outcome:9s} {seconds:6.1f}s  {message[:160]}", flush=True)
    if args.markdown:
        print("| kernel | outcome | first line of the message |\n|---|---|---|")
        for name, outcome, message in rows:
            print(f"| {name} | {outcome} | {message.replace('|', '/')[:200]} |")
    for family in ("main", "gemm"):
        counts = Counter(outcome for name, outcome, _ in rows if name.startswith("gemm__") == (family == "gemm"))
        total = sum(counts.values())
        if total:
            kinds = ("pass", "refusal", "mismatch", "internal", "timeout", "other")
            summary = ", ".join(f"{k} {counts[k]}" for k in kinds
                                if counts[k])
            print(f"{family}: {total} kernels: {summary}")


if __name__ == "__main__":
    main()
