"""Suite-wide: the `needs_cpu` marker and the watch on every in-process run
of compiled code (tests/hostcpu.py decides; this wires it into pytest)."""
from __future__ import annotations

import pytest

import hostcpu

pytest_plugins = ["pytester"]  # tests/test_host_gate.py runs the watch in a pytest of its own


# Tests that drive real clients (editors, the language server, the TUI) with timeouts: under
# `pytest -n 2` they run one after another in one worker while the other runs the rest.
_ONE_WORKER = ("editors", "lsp", "tui")


def pytest_collection_modifyitems(config, items):
    for item in items:
        parts = item.path.parts
        folder = parts[parts.index("tests") + 1] if "tests" in parts else ""
        if folder in _ONE_WORKER:
            item.add_marker(pytest.mark.xdist_group("clients"))


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_cpu(*features): the test runs code needing these x86 "
                                       "features; skipped on a CPU that lacks them (tests/hostcpu.py)")


@pytest.fixture(autouse=True)
def _host_cpu_watch(request, monkeypatch):
    """Starts each test with nothing declared, applies its `needs_cpu` marks,
    and fails a test that loads code needing features it did not ask for."""
    hostcpu.start_test()
    for mark in request.node.iter_markers("needs_cpu"):
        hostcpu.require_features(*mark.args)
    from ea_compiler import loader
    original = loader.ensure_runnable
    unasked: list[str] = []

    def watched(opts):
        original(opts)
        extra = hostcpu.undeclared(opts)
        if extra:
            unasked.append(", ".join(sorted(extra)))

    monkeypatch.setattr(loader, "ensure_runnable", watched)
    yield
    if unasked:
        pytest.fail(f"ran code needing {unasked[0]} without asking tests/hostcpu.py "
                    "(mark the test needs_cpu(...) or call hostcpu.require_runnable(options))", pytrace=False)
