# `make demo` installs and generates a small split (the README's first command); `make install-dev` installs
# what the tests need, the export consumers included (the README's second command then runs pytest).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo install install-dev install-consumers lint

# The trainers and evaluators the export tests feed (tests/test_consumers.py): their own pins do not fit beside
# transformers 5 / trl 1 / the CPU torch wheel, so they go in without dependencies; [consumers] has what they import.
CONSUMERS := ms-swift==4.6.0 llamafactory==0.9.5 lmms-eval==0.7.3

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
	$(BIN)/pip install -q -e ".[dev,llm,train,ray,hf,audit,diffusion,consumers]"
	$(BIN)/pip install -q --no-deps $(CONSUMERS)

install-consumers: $(BIN)/python
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[train,consumers]"
	$(BIN)/pip install -q --no-deps $(CONSUMERS)

demo: install
	$(BIN)/mirforge generate --tasks view_3d --n 24 --seed 7 --workers 2 --out demo
	$(BIN)/mirforge validate demo

lint: install-dev
	$(BIN)/ruff check . && $(BIN)/ruff format --check .
