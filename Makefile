# The two commands of the README: `make demo` (install, generate a small split, validate it) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test test-slow install install-dev lint

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

install: $(BIN)/python
	bash scripts/system-deps.sh
	$(BIN)/pip install -q -e .

# torch first, pinned: it takes the CPU wheel; an unpinned torch would pull a multi-GB CUDA build.
install-dev: $(BIN)/python
	bash scripts/system-deps.sh --browser
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[dev,llm,train,ray,hf,audit]"

demo: install
	$(BIN)/mirforge generate --tasks view_3d --n 24 --seed 7 --workers 2 --out demo
	$(BIN)/mirforge validate demo

test: install-dev
	$(BIN)/python -m pytest -q

# exit code 5 means no slow test was collected: not a failure
test-slow: install-dev
	$(BIN)/python -m pytest -q -m slow || [ $$? -eq 5 ]

lint: install-dev
	$(BIN)/ruff check . && $(BIN)/ruff format --check .
