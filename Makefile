# The two commands of the README: `make demo` and `make test`. Both build the virtual environment first.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: install demo test lint bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

install: $(VENV)/.installed

demo: install
	$(PY) -m tablewatch demo

# The tests run in two workers, each taking a whole test file at a time (its module fixtures built once).
test: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(PY) -m pytest -q -n 2 --dist loadfile

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) out .pytest_cache .ruff_cache .mypy_cache .import_linter_cache
