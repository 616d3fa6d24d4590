# Set-up and everyday commands. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench system-deps clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/pip install --quiet torch==2.13.0 || echo "torch 2.13.0 not available: PyTorch binding tests will be skipped"
	touch $(STAMP)

# Debian packages the tests need, installed only when missing (later issues add to the list).
system-deps:
	@./.ci/system-deps.sh

demo: $(STAMP)
	$(BIN)/ea check examples/*.ea
	$(BIN)/python examples/demo.py

test: $(STAMP) system-deps
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/frontend.py
	$(BIN)/python bench/kernels.py
	$(BIN)/python bench/inspect_bench.py
	$(BIN)/python bench/binding_bench.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
