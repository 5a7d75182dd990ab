# The two set-up commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench-reuters clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

# Trains GILE-HAN on the embedded demo dataset, evaluates seen and unseen labels,
# exports a SavedModel, reloads it and predicts from raw text.
demo: $(STAMP)
	TF_CPP_MIN_LOG_LEVEL=3 $(PY) examples/demo.py

# Formatting and lint first (ruff, configured in pyproject.toml), then the tests; pytest prints the 20 slowest.
test: $(STAMP)
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	TF_CPP_MIN_LOG_LEVEL=3 $(PY) -m pytest

# Takes about half an hour on 2 CPU cores; writes benchmarks/results/reuters.json.
bench-reuters: $(STAMP)
	TF_CPP_MIN_LOG_LEVEL=3 $(PY) benchmarks/reuters.py

clean:
	rm -rf $(VENV) artifacts .pytest_cache
