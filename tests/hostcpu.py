"""The one place that decides whether a test may execute code compiled for a
CPU here. It asks the compiler (`ea_compiler.cpu_levels.missing_on_host`,
which reads the host's features as the compiler does), so the suite runs the
same tests on an AVX2-only and an AVX-512 host and skips, with the reason,
only the executions this CPU cannot do.

    @pytest.mark.needs_cpu("avx512f", "avx512bw")     # a whole test
    def test_x(): ...

    def test_y(options):                               # a case of a parametrized test
        require_runnable(options)                      # skips here when the CPU lacks what it needs

Every run of compiled code in the suite passes through here: `ea.load`
(the root conftest watches `ea_compiler.loader.ensure_runnable`) and the C
harnesses (`tests/e2e/harness.py`). A test that runs code needing more than
BASELINE without having asked fails, even on a host that has the features:
that is how an AVX-512 machine catches a test that would die of SIGILL on
an AVX2 one.
"""
from __future__ import annotations

import pytest

from ea_compiler.cpu_levels import (CPU_LEVELS, CPUINFO_NAMES, flag_features, host_features_from_os, is_native,
                                    missing_on_host, native_override)
from ea_compiler.options import Options

# Every x86-64 host the suite runs on has at least Haswell's AVX2, FMA and F16C.
BASELINE = CPU_LEVELS["x86-64-v3"]

_declared: set[str] = set()


def features_beyond_baseline(options: Options) -> frozenset[str]:
    """What code for `options` needs beyond BASELINE; code for the host itself
    needs nothing more (it is compiled for the CPU that runs it)."""
    from ea_compiler.cpu_levels import target_features
    if options.is_arm:
        return frozenset()
    if is_native(options) and native_override() is None and not options.target_triple:
        wanted = flag_features(options)
    else:
        wanted = target_features(options) or frozenset()
    return frozenset(wanted - BASELINE)


def host_lacks(features) -> frozenset[str]:
    """Those of `features` (LLVM's or /proc/cpuinfo's spelling) this CPU lacks."""
    host = host_features_from_os() or frozenset()
    return frozenset(f for f in features if CPUINFO_NAMES.get(f, f) not in host)


def reports_features() -> bool:
    """The OS reports this CPU's x86 features (Linux on x86)."""
    return host_features_from_os() is not None and not Options().is_arm


def both_views() -> tuple[frozenset[str], frozenset[str]]:
    """This CPU's features as the OS reports them (what every decision reads)
    and as LLVM sees them (what native code is generated with)."""
    import llvmlite.binding as llvm
    return (host_features_from_os() or frozenset(),
            frozenset(name for name, on in llvm.get_host_cpu_features().items() if on))


def has(feature: str) -> bool:
    """Whether this CPU has `feature`; a test that then runs code needing it
    still asks with require_features or require_runnable."""
    return not host_lacks([feature])


def declare(features) -> None:
    """The running test asked for these features (and was not skipped)."""
    _declared.update(features)


def require_runnable(options: Options) -> None:
    """Skip the running test when this CPU cannot run code for `options`."""
    needed = features_beyond_baseline(options)
    missing = missing_on_host(options) | host_lacks(needed)
    if missing:
        pytest.skip(f"runs code needing {', '.join(sorted(missing))}, which this CPU lacks")
    declare(needed)


def require_features(*features: str) -> None:
    """Skip the running test when this CPU lacks any of `features`."""
    missing = host_lacks(features)
    if missing:
        pytest.skip(f"needs {', '.join(sorted(missing))}, which this CPU lacks")
    declare(features)


def undeclared(options: Options) -> frozenset[str]:
    """What code for `options` needs beyond BASELINE that the running test did not ask for."""
    return features_beyond_baseline(options) - _declared


def start_test() -> None:
    _declared.clear()
