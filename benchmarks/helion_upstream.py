"""Helion's own examples as they come: every kernel an example checks, run through Loom inside the
example's own code, its result held against the example's own baseline.

    .venv/bin/python benchmarks/helion_upstream.py HELION_CHECKOUT [--arch wormhole_n150] [--only NAME]
        [--max-size 512] [--timeout 300] [--markdown] [--interpreter]

HELION_CHECKOUT is a clone of pytorch/helion (its examples/ folder; not kept in this repository). Each
example runs in a process of its own (`--worker`):
- it is imported with `helion._testing.DEVICE` set to the CPU and `run_example` replaced by a recorder;
- its `main()` runs with `check` / `test` replaced by recorders of their arguments; each distinct call
  then runs for real with every integer argument above `--max-size` lowered to about it (`_capped`; the
  examples' sizes reach 262144 x 1024; the simulator carries the data on this machine's CPU), and halved
  again (to 64 at least) while a tensor argument still holds more than `MAX_ELEMENTS` (mamba2's 4-D inputs).
  An example whose `main()` builds its tensors itself has torch's factories lower every dimension above it
  the same way (`_Capped`);
- every `run_example(kernels, baseline, args)` it makes (with `bwd=True`, also the gradients: a row
  `NAME backward`, the kernels of the backward pass through Loom too) calls
  each kernel function with `helion.Kernel.__call__` standing for Loom: the kernel is compiled for
  `--arch`, simulated on loom.sim with data, and what it returns comes from the simulated outputs
  (`loom.run.kernel_values`); a wrapper's host code around the kernel runs in torch as written. The
  result is compared with the baseline at the example's rtol / atol;
- a kernel the example calls itself (`out = kernel(x)` then its own assertions) runs through Loom too, and
  passes when the example's own checks hold (a row without arguments).
Each row gives the compile time of stages 2-6 (Helion's trace, stage 1, apart). With `--interpreter` each
example also runs in a second process with Helion's own CPU interpreter (HELION_INTERPRET=1) in Loom's place,
and the counts are split as issue 17 splits the examples: kernels the interpreter runs correctly, kernels it
cannot run for want of `aten::mm.dtype` on CPU (the GEMM / attention family), and the rest.
Outcomes: `pass`, `pass-fp32` (a mismatch with an example's float16 / bfloat16 baseline where Loom's result
matches that baseline run in float32, at the same tolerance, and the example's baseline does not: the
baseline's rounding is off, not Loom's), `mismatch` (max |error| over the tolerance), `refusal` (a Loom
error naming the user's construct; first line shown), `internal` (any other exception inside Loom: a Loom
bug), `example` (the example fails outside Loom: its own host code, imports, CUDA-only calls), `timeout`.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import subprocess
import sys
import time
import traceback
import types
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_ELEMENTS = 1 << 23
"""Largest input a kernel call may take here (8 M elements); a larger one is reported, not run."""
NOT_EXAMPLES = {"__init__", "aot_compile_example", "aot_example"}


class LoomFailed(Exception):
    """Loom raised while standing for a kernel call: `error` is what it raised."""

    def __init__(self, kernel: str, error: BaseException, trace: str) -> None:
        super().__init__(f"{kernel}: {error}")
        self.kernel, self.error, self.trace = kernel, error, trace


def _loom_call(arch: str, log: list, original):
    """A `Kernel.__call__` that compiles the kernel with Loom, simulates it and returns its values (the
    host code Loom runs around the simulated loop, in Helion's eager reference mode, calls `original`)."""
    import helion

    from loom.pipeline import compile as compile_kernel
    from loom.run import kernel_values, run

    def call(kernel, *args, **kwargs):
        if kernel.settings.ref_mode == helion.RefMode.EAGER:
            return original(kernel, *args, **kwargs)
        if kwargs:
            args = tuple(kernel.normalize_args(*args, **kwargs))
        name = kernel.fn.__name__
        key = (id(kernel), tuple(_argument_key(a) for a in args))
        if key in _RESULTS:  # the same kernel on the same values (an example's own timing loop): its result again
            entry, values = _RESULTS[key]
            log.append(entry)
            return _cloned(values)
        try:
            compilation = compile_kernel(kernel, args, arch, jobs=1)
            result = run(compilation, args, functional=True)
            stages = sum(t for stage, t in compilation.seconds.items() if not stage.startswith("frontend"))
            log.append({"kernel": name, "cycles": float(result.sim.kernel_cycles), "compile": stages})
            values = kernel_values(compilation, result.program, result.sim.outputs, args)
        except Exception as err:  # noqa: BLE001 - every failure is reported, by kind
            raise LoomFailed(name, err, traceback.format_exc(limit=-3)) from err
        _RESULTS[key] = (log[-1], _cloned(values))
        return values
    return call


_RESULTS: dict = {}
"""(kernel, its arguments' shapes, types and values) -> (the log entry, what Loom's run returned)."""


def _argument_key(arg) -> object:
    import hashlib

    import torch

    if isinstance(arg, torch.Tensor):
        data = arg.detach().contiguous().cpu()
        return (tuple(arg.shape), str(arg.dtype), hashlib.sha1(data.view(torch.uint8).numpy().tobytes()).hexdigest())
    return repr(arg)


def _cloned(values):
    import torch

    if isinstance(values, torch.Tensor):
        return values.clone()
    if isinstance(values, (tuple, list)):
        return type(values)(_cloned(v) for v in values)
    return values


def _capped_sizes(value, most: int):
    """A number, or a list / tuple of numbers (`normalized_shape`), with every size above `most` lowered to about it."""
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return type(value)(_capped(v, most) for v in value)
    return _capped(value, most)


def _capped(value, most: int):
    """A size above `most` lowered to about it, keeping its offset from the nearest multiple of 64 (-32 to
    +31), so sizes an example derives from one another stay apart as they were (grpo_loss's L + 1 and L:
    2049 and 2048 become 513 and 512, a vocabulary V and its V - 1 512 and 511)."""
    if not isinstance(value, int) or isinstance(value, bool) or value <= most:
        return value
    offset = value % 64
    return most + (offset - 64 if offset >= 32 else offset)


def _compare(actual, expected, rtol: float, atol: float) -> tuple[bool, str]:
    import torch

    got = [v for v in (actual if isinstance(actual, (tuple, list)) else [actual]) if isinstance(v, torch.Tensor)]
    want = [v for v in (expected if isinstance(expected, (tuple, list)) else [expected]) if isinstance(v, torch.Tensor)]
    if len(got) != len(want) or any(g.shape != w.shape for g, w in zip(got, want)):
        return False, f"returns shapes {[list(g.shape) for g in got]}, baseline {[list(w.shape) for w in want]}"
    worst = ""
    for g, w in zip(got, want):
        g, w = g.detach().float(), w.detach().float()
        error = (g - w).abs()
        limit = atol + rtol * w.abs()
        if bool((error > limit).any()) or bool(torch.isnan(g).ne(torch.isnan(w)).any()):
            worst = f"max |error| {float(error.nan_to_num(float('inf')).max()):.3g} over atol {atol} + rtol {rtol}"
    return not worst, worst or "matches the baseline"


class _Capped:
    """While on (an example's main() builds its own inputs), torch's tensor factories lower every dimension
    above `most` to about it (`_capped`), the same way in every tensor, so shapes that must agree still do
    (cross_entropy's main() asks for 16384 x 131072 logits and 16384 labels: 512 x 512 and 512)."""

    most: int | None = None

    @classmethod
    def install(cls) -> None:
        import torch

        for name in ("randn", "rand", "zeros", "ones", "empty", "randint", "full"):
            setattr(torch, name, cls._capping(getattr(torch, name)))

    @classmethod
    def _capping(cls, factory):
        def make(*args, **kwargs):
            if cls.most is None:
                return factory(*args, **kwargs)
            at = len(args) - 1 if factory.__name__ == "randint" else 0  # randint(low, high, size)
            if "size" in kwargs:
                kwargs["size"] = [_capped(d, cls.most) for d in kwargs["size"]]
            elif args and isinstance(args[at], (tuple, list)):
                args = (*args[:at], [_capped(d, cls.most) for d in args[at]], *args[at + 1:])
            elif factory.__name__ != "randint":
                args = tuple(_capped(a, cls.most) for a in args)
            if factory.__name__ == "randint":  # values index a capped dimension (grpo_loss's token ids)
                args = tuple(_capped(a, cls.most) if i < at else a for i, a in enumerate(args))
            return factory(*args, **kwargs)
        return make


class _Direct:
    """Kernels an example calls itself (outside `run_example`, its own assertions checking them), each run
    through Loom: kernel name -> (outcome, message)."""

    def __init__(self) -> None:
        self.log: list[dict] = []
        self.rows: dict[str, tuple[str, str]] = {}

    def run(self, phase, *args, **kwargs) -> None:
        """Run one phase of the example (its main(), a check); what Loom ran in it passes unless it raised."""
        seen = len(self.log)
        try:
            phase(*args, **kwargs)
        except LoomFailed as failed:
            self.rows[failed.kernel] = _loom_outcome(failed)
            raise
        except AssertionError as err:  # the example's own check of what Loom returned
            if len(self.log) > seen:
                self.rows[self.log[-1]["kernel"]] = ("mismatch", f"the example's own check: {_first_line(err)}")
            raise
        finally:
            for entry in self.log[seen:]:
                self.rows.setdefault(entry["kernel"], ("pass", "the example's own checks hold"))


def _calls(module, most: int, direct: _Direct) -> list[tuple]:
    """The example's `run_example` calls: (kernels, baseline, args, options), at capped sizes; kernels it
    calls itself run through Loom meanwhile (`direct`)."""
    import helion._testing as testing

    recorded: list[tuple] = []

    def run_example(kernel_fn, baseline_fn, args, **options):  # helion._testing.run_example's parameters
        recorded.append((kernel_fn, baseline_fn, args, options))
        return {}
    testing.run_example = module.run_example = run_example
    drivers = {name: getattr(module, name) for name in ("check", "test") if callable(getattr(module, name, None))}
    asked: list[tuple] = []
    for name in drivers:
        setattr(module, name, lambda *a, _n=name, **kw: asked.append((_n, a, kw)))
    _Capped.most = most
    try:
        direct.run(module.main)
    finally:
        _Capped.most = None
        for name, fn in drivers.items():
            setattr(module, name, fn)
    if not asked:  # main() builds its inputs and calls run_example itself: its sizes given as numbers too
        return [(k, b, tuple(_capped_sizes(a, most) for a in args), o) for k, b, args, o in recorded]
    seen, out = set(), []
    for name, args, kwargs in asked:
        capped = (name, tuple(_capped(a, most) for a in args),
                  tuple(sorted((k, _capped(v, most)) for k, v in kwargs.items())))
        if capped in seen:
            continue
        seen.add(capped)
        recorded.clear()
        options = dict(capped[2])
        params = list(inspect.signature(drivers[name]).parameters)
        if "device" in params and len(capped[1]) <= params.index("device"):
            options.setdefault("device", "cpu")  # a driver whose device defaults to "cuda" (flex_attention's test)
        direct.run(drivers[name], *capped[1], **options)
        out.extend(recorded)
    return out


class _TritonStandIn(types.ModuleType):
    """Stands in for `triton` (not installed: it needs CUDA), which some examples import for their Triton
    baselines or timing only (segment_reduction, blackwell_attention): decorators return the function,
    `do_bench` times nothing (NaN), anything else is another stand-in; launching a Triton kernel fails as the
    example's own code (an `example` row)."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return _TritonStandIn(f"{self.__name__}.{name}")

    def __call__(self, *args, **kwargs):
        if self.__name__.split(".")[-1] in ("jit", "autotune", "heuristics"):
            if len(args) == 1 and callable(args[0]) and not kwargs:
                return args[0]  # `@triton.jit`
            return lambda fn: fn  # `@triton.autotune(configs=...)`
        if self.__name__.endswith("do_bench"):
            return float("nan")  # an example's own timing after its run_example call: not timed here
        return _TritonStandIn(f"{self.__name__}()")  # `triton.Config(...)`, built at import

    def __getitem__(self, grid):
        raise RuntimeError(f"{self.__name__} needs Triton (a CUDA baseline), not installed here")


def _install_triton_stand_in() -> None:
    try:
        import triton  # noqa: F401
    except ImportError:
        for name in ("triton", "triton.language", "triton.testing"):
            sys.modules[name] = _TritonStandIn(name)


def _untriton(baseline):
    """The baseline to compare with: an example's first that is not a Triton kernel (`{"triton": ...,
    "pytorch": ...}`: PyTorch's)."""
    if not isinstance(baseline, dict):
        return baseline
    return next((fn for name, fn in baseline.items() if "triton" not in name.lower()), next(iter(baseline.values())))


def _too_big(calls: list[tuple]) -> list[tuple]:
    """The shapes of the calls' tensor arguments above `MAX_ELEMENTS` (the simulator carries them on this CPU)."""
    import torch

    return [tuple(a.shape) for _, _, args, _ in calls for a in args
            if isinstance(a, torch.Tensor) and a.numel() > MAX_ELEMENTS]


def worker(path: Path, arch: str, most: int, interpret: bool = False) -> list[dict]:
    """Run one example (this process): one row per kernel it checks; with `interpret`, each kernel runs in
    Helion's CPU interpreter (HELION_INTERPRET=1) instead of Loom."""
    import helion
    import helion._testing as testing
    import torch

    if interpret:  # Helion's own CPU interpreter runs the kernels (read when the examples define them)
        os.environ["HELION_INTERPRET"] = "1"
    else:
        os.environ.pop("HELION_INTERPRET", None)
    testing.DEVICE = torch.device("cpu")
    _Capped.install()
    _install_triton_stand_in()
    sys.path.insert(0, str(path.parents[1]))
    example = path.stem
    direct, original = _Direct(), helion.Kernel.__call__
    failure, calls = None, []
    if not interpret:
        helion.Kernel.__call__ = _loom_call(arch, direct.log, original)
    try:
        spec = importlib.util.spec_from_file_location(f"examples.{example}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        calls = _calls(module, most, direct)
        while most > 64 and _too_big(calls):  # 4-D inputs (mamba2's 8 x 4096 x 80 x 64): sizes lowered further
            most //= 2
            calls = _calls(module, most, direct)
    except Exception as err:  # noqa: BLE001
        failure = err
    finally:
        helion.Kernel.__call__ = original
    rows = [{"example": example, "kernel": name, "outcome": outcome, "message": message,
             "compile": max((e["compile"] for e in direct.log if e["kernel"] == name), default=None)}
            for name, (outcome, message) in direct.rows.items()]
    if failure is not None and not isinstance(failure, (LoomFailed, AssertionError)) or not (calls or rows):
        message = _first_line(failure) if failure is not None else "main() makes no run_example call"
        rows.append({"example": example, "kernel": "-", "outcome": "example", "message": message})
    covered: set[str] = set()
    for kernels, baseline, args, options in calls:
        too_big = _too_big([(kernels, baseline, args, options)])
        named = kernels.items() if isinstance(kernels, dict) else [(getattr(kernels, "__name__", "kernel"), kernels)]
        reference = _untriton(baseline)
        tolerance = options.get("rtol", 1e-2), options.get("atol", 1e-1)
        for name, fn in named:
            checks = [(name, _forward)] + ([(f"{name} backward", _backward)] if options.get("bwd") else [])
            for row_name, check in checks:
                row = {"example": example, "kernel": row_name, "args": _describe(args)}
                if too_big:
                    rows.append({**row, "outcome": "example",
                                 "message": f"inputs of shape {too_big[0]}: too large here"})
                    continue
                log: list = []
                if not interpret:
                    helion.Kernel.__call__ = _loom_call(arch, log, original)
                try:
                    ok, message = check(fn, reference, args, *tolerance)
                    outcome = ok if isinstance(ok, str) else "pass" if ok else "mismatch"
                except LoomFailed as failed:
                    outcome, message = _loom_outcome(failed)
                except Exception as err:  # noqa: BLE001
                    outcome, message = "example", _first_line(err)
                finally:
                    helion.Kernel.__call__ = original
                rows.append({**row, "outcome": outcome, "message": message, "cycles": sum(r["cycles"] for r in log),
                             "compile": max((r["compile"] for r in log), default=None)})
                covered.update(r["kernel"] for r in log)
    # a kernel the example also checks through run_example is counted there
    return [r for r in rows if not (r.get("args") is None and r["kernel"] in covered and r["outcome"] == "pass")]


def _forward(fn, reference, args, rtol: float, atol: float) -> tuple[bool | str, str]:
    """The kernel's outputs against the baseline's (what `run_example` checks first); on a mismatch, against
    the baseline run in float32 (`_in_float32`)."""
    got = fn(*args)
    ok, message = _compare(got, reference(*args), rtol, atol)
    if ok or not _low_precision(args):
        return ok, message
    try:
        exact = reference(*_in_float32(args))
    except Exception:  # noqa: BLE001 - a baseline that casts its own arguments (`x.to(torch.bfloat16) @ w`)
        return False, f"{message} (the baseline does not run in float32)"
    return _against_float32(_compare(got, exact, rtol, atol), _compare(reference(*args), exact, rtol, atol), message)


def _low_precision(args) -> bool:
    import torch

    return any(isinstance(a, torch.Tensor) and a.dtype in (torch.float16, torch.bfloat16) for a in args)


def _in_float32(args) -> tuple:
    """`args` with every float16 / bfloat16 tensor in float32 (a leaf that requires a gradient stays one)."""
    import torch

    return tuple(a.detach().float().requires_grad_(a.requires_grad)
                 if isinstance(a, torch.Tensor) and a.dtype in (torch.float16, torch.bfloat16) else a for a in args)


def _against_float32(loom: tuple[bool, str], baseline: tuple[bool, str], message: str) -> tuple[bool | str, str]:
    """Outcome `pass-fp32` where Loom's result matches the baseline computed in float32 at the example's
    tolerance and the example's own low-precision baseline does not (its rounding, not Loom's, is off); else
    the mismatch with the example's baseline stands."""
    if loom[0] and not baseline[0]:
        return "pass-fp32", (f"matches the baseline run in float32; the example's own low-precision baseline is "
                             f"off from that one ({baseline[1]})")
    return False, message


def _backward(fn, reference, args, rtol: float, atol: float) -> tuple[bool, str]:
    """`run_example(..., bwd=True)`'s second check: the gradients of the arguments that require them, for one
    random output gradient, against the baseline's (the kernels the backward pass calls run through Loom)."""
    import torch

    leaves = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    if not leaves:
        raise ValueError("bwd=True, but no argument requires a gradient")
    expected = reference(*args)
    torch.manual_seed(0)
    grad_output = torch.randn_like(expected)
    want = torch.autograd.grad(expected, leaves, grad_output, allow_unused=True)
    got = torch.autograd.grad(fn(*args), leaves, grad_output, allow_unused=True)
    if [g is None for g in got] != [w is None for w in want]:
        return False, "gradients exist for other arguments than the baseline's"
    got, want = [g for g in got if g is not None], [w for w in want if w is not None]
    ok, message = _compare(got, want, rtol, atol)
    if ok or not _low_precision(args):
        return ok, message if not ok else "gradients match the baseline's"
    args32 = _in_float32(args)
    try:
        exact = torch.autograd.grad(reference(*args32), [a for a in args32 if isinstance(a, torch.Tensor)
                                                         and a.requires_grad], grad_output.float(), allow_unused=True)
    except Exception:  # noqa: BLE001 - as in `_forward`
        return False, f"{message} (the baseline does not run in float32)"
    exact = [g for g in exact if g is not None]
    return _against_float32(_compare(got, exact, rtol, atol), _compare(want, exact, rtol, atol), message)


def _loom_outcome(failed: LoomFailed) -> tuple[str, str]:
    from loom.errors import InternalError, LoomError

    err = failed.error
    if isinstance(err, LoomError) and not isinstance(err, InternalError):
        return "refusal", _first_line(err)
    return "internal", f"{type(err).__name__}: {_first_line(err)} [{failed.trace.strip().splitlines()[-3].strip()}]"


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return f"{type(err).__name__}: {text.splitlines()[0] if text else ''}"[:300]


def _describe(args: tuple) -> str:
    import torch

    return ", ".join(f"{list(a.shape)} {str(a.dtype).replace('torch.', '')}" if isinstance(a, torch.Tensor)
                     else repr(a) for a in args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("helion", type=Path, help="a clone of pytorch/helion")
    parser.add_argument("--arch", default="wormhole_n150")
    parser.add_argument("--only", default="", help="run only examples whose name contains this text")
    parser.add_argument("--max-size", type=int, default=512)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--interpreter", action="store_true",
                        help="also run each kernel in Helion's CPU interpreter (HELION_INTERPRET=1) and group the "
                             "outcomes by whether it runs there (issue 17's split of the examples)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--interpret", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.worker:
        print(json.dumps(worker(options.helion, options.arch, options.max_size, options.interpret)))
        return
    paths = sorted(p for p in (options.helion / "examples").glob("*.py")
                   if p.stem not in NOT_EXAMPLES and options.only in p.stem)
    rows = []
    for path in paths:
        start = time.perf_counter()
        found = _run_worker(path, options)
        if options.interpreter:
            interpreted = {r["kernel"]: r for r in reversed(_run_worker(path, options, interpret=True))}
            for row in found:
                row["interpreter"] = _interpreter_class(interpreted.get(row["kernel"]))
        kernels = {}
        for row in found:  # one row per kernel: its first call (the examples check some at several sizes)
            kernels.setdefault(row["kernel"], row)
        for row in kernels.values():
            rows.append(row)
            if not options.markdown:
                seconds = time.perf_counter() - start
                print(f"{row['example']:24s} {row['kernel']:32s} {row['outcome']:9s} "
                      f"{row.get('interpreter', ''):9s}{seconds:6.1f}s  "
                      f"{row['message'][:150]}", flush=True)
    if options.markdown:
        extra = " interpreter |" if options.interpreter else ""
        print(f"| example | kernel | outcome |{extra} compile (stages 2-6) | message |\n|---|---|---|"
              + ("---|" if extra else "") + "---|---|")
        for r in rows:
            compiled = f"{r['compile']:.2f} s" if r.get("compile") is not None else "-"
            interpreter = f" {r.get('interpreter', '-')} |" if extra else ""
            print(f"| {r['example']} | {r['kernel']} | {r['outcome']} |{interpreter} {compiled} | "
                  f"{r['message'].replace('|', '/')[:200]} |")
    compiled = [r["compile"] for r in rows if r.get("compile") is not None]
    if compiled:
        print(f"compile time (stages 2-6) of the kernels Loom compiled: at most {max(compiled):.2f} s")
    print(f"{len(rows)} kernels in {len(paths)} examples on {options.arch}: {_counts(rows)}")
    if options.interpreter:
        for group, label in (("runs", "that Helion's CPU interpreter runs correctly"),
                             ("mm.dtype", "that it cannot run for want of aten::mm.dtype on CPU (GEMM / attention)"),
                             ("fails", "that it fails on otherwise, or that an example calls itself")):
            members = [r for r in rows if r.get("interpreter") == group]
            print(f"  {len(members)} kernels {label}: {_counts(members)}")


def _counts(rows: list[dict]) -> str:
    counts = Counter(r["outcome"] for r in rows)
    return ", ".join(f"{k} {counts[k]}" for k in ("pass", "pass-fp32", "mismatch", "refusal", "internal", "example",
                                                  "timeout") if counts[k]) or "none"


def _interpreter_class(row: dict | None) -> str:
    """How Helion's CPU interpreter fares with a kernel: `runs` (its result matches the baseline), `mm.dtype`
    (CPU torch lacks `aten::mm.dtype`, which Helion's matmuls with an out dtype call: the GEMM / attention
    family of issue 17) or `fails` (anything else, or a kernel the example calls itself: not interpreted)."""
    if row is None:
        return "fails"
    if row["outcome"] in ("pass", "pass-fp32"):
        return "runs"
    return "mm.dtype" if "mm.dtype" in row["message"] else "fails"


def _run_worker(path: Path, options, interpret: bool = False) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    command = [sys.executable, __file__, str(path), "--worker", "--arch", options.arch,
               "--max-size", str(options.max_size)] + (["--interpret"] if interpret else [])
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=options.timeout, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return [{"example": path.stem, "kernel": "-", "outcome": "timeout", "message": f"over {options.timeout:.0f} s"}]
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("["):
            return json.loads(line)
    tail = (proc.stderr or proc.stdout).strip().splitlines()
    return [{"example": path.stem, "kernel": "-", "outcome": "internal" if "loom" in (proc.stderr or "") else "example",
             "message": f"exit {proc.returncode}: {tail[-1] if tail else ''}"}]


if __name__ == "__main__":
    main()
