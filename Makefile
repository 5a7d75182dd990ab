# The two set-up commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test clean

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

# make bench-reuters runs python -m benchmarks.reuters (results in benchmarks/results/); `--help` says how long.
bench-%: $(STAMP)
	TF_CPP_MIN_LOG_LEVEL=3 $(PY) -m benchmarks.$*

# make tune-label_heads_demo runs python -m tuning.label_heads_demo (results in tuning/results/).
tune-%: $(STAMP)
	TF_CPP_MIN_LOG_LEVEL=3 $(PY) -m tuning.$*

clean:
	rm -rf $(VENV) artifacts .pytest_cache
