# The two commands of the README: `make demo` and `make test`. Both set up .venv first.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint fuzz setup clean

setup: $(STAMP)

# torch is pinned to the CPU build (2.13.0) and installed first, so that no
# other requirement can pull a multi-GB CUDA build.
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/loom run examples/matmul.py --shape M=1024,N=1024,K=1024 --check

# Lint first (ruff, rules in pyproject.toml), then the tests, on two worker processes (pytest-xdist:
# the CI machine has two cores; the suite takes about 9 minutes there, 16 on one).
test: lint
	$(BIN)/python -m pytest -n 2

lint: $(STAMP)
	$(BIN)/ruff check loom tests benchmarks examples

# Nightly-style fuzzing of compiled programs (issue #10): 200 random kernels, sizes, architectures and
# legal schedules, each simulated and checked against torch. `make test` runs a fixed 10-example subset.
fuzz: $(STAMP)
	LOOM_FUZZ_EXAMPLES=200 $(BIN)/python -m pytest tests/fuzz -p no:logging --hypothesis-show-statistics

clean:
	rm -rf $(VENV) build *.egg-info
