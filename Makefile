# autograph: developer entry points. Each target creates (or reuses) the virtual
# environment .venv and installs the project into it, editable, re-installing
# only when pyproject.toml changed (stamp files in .venv).
#
#   make install   .venv with the project and its test extras
#   make test      the test suite (pytest)
#   make demo      compile, check and time the example kernels
#   make bench     the benchmarks of KERNELS.md (Numba columns if numba installs)
#   make lint      byte-compile everything; ruff too if it is installed
#   make docs      rewrite the generated sections of docs/ops.md (from the op registry)
#   make clean     remove build litter (keeps .venv)

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check
PYTEST_ARGS ?=
BENCH_ARGS ?=
DEMO_ARGS ?=
SOURCES := autograph tracer codegen runtime examples bench tests

.PHONY: install test demo bench lint docs clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# the project, editable, with pytest and hypothesis
$(VENV)/.stamp-test: pyproject.toml | $(PY)
	$(PIP) install -q -e '.[test]'
	@touch $@

# numba is optional: bench prints its columns only when it installed
$(VENV)/.stamp-bench: pyproject.toml $(VENV)/.stamp-test
	$(PIP) install -q -e '.[bench]' || echo "numba could not be installed: bench runs without it"
	@touch $@

install: $(VENV)/.stamp-test

test: $(VENV)/.stamp-test
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

demo: $(VENV)/.stamp-test
	$(PY) examples/demo.py $(DEMO_ARGS)

bench: $(VENV)/.stamp-bench
	$(PY) bench/run.py $(BENCH_ARGS)

lint:
	$(PYTHON) -m compileall -q $(wildcard $(SOURCES))
	@if command -v ruff >/dev/null 2>&1; then ruff check .; \
	elif [ -x $(VENV)/bin/ruff ]; then $(VENV)/bin/ruff check .; \
	else echo "ruff not installed: skipped (compileall passed)"; fi

docs: $(VENV)/.stamp-test
	$(PY) -m autograph.tracer.api.docs docs/ops.md

clean:
	rm -rf build dist *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +
