# `make demo` installs and generates a small split (the README's first command); `make install-dev` installs
# what the tests need (the README's second command then runs pytest).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo install install-dev lint

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

lint: install-dev
	$(BIN)/ruff check . && $(BIN)/ruff format --check .
