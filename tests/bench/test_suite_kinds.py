"""Suites that fit real kernels (issue 22 §2): several named size parameters per
bench, a fraction of values allowed to differ, a custom check expression, GFLOP/s
and the fraction of the machine's FMA peak; and sizes printed exactly."""
from __future__ import annotations

import json

import pytest

from ea_compiler import Options
from ea_compiler.bench import BenchError, load_suite, run_suite, size_label
from ea_compiler.bench import peak as peak_mod
from ea_compiler.bench.sizes import Size, count_label

from named_sizes import MATMUL, MATMUL_SUITE

from .bench_support import FMA, SUITE, ea_bench, write_suite

FAST = ("--quick", "--no-bandwidth", "--reps", "5")


@pytest.fixture
def peak_cache(tmp_path, monkeypatch):
    """The FMA peak cache in a temporary home, holding 100 GFLOP/s for this host."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = peak_mod.cache_file()
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({peak_mod.cache_key(Options()): 100.0}))
    return tmp_path / "cache"


def test_exact_size_labels():
    # Issue 22: 250,000 printed as 250K and 16,000,000 as 15625K.
    assert [count_label(n) for n in (250_000, 16_000_000, 4096, 16 << 20, 1000, 1536 << 10, 3 << 30)] == \
        ["250000", "16000000", "4K", "16M", "1000", "1572864", "3G"]
    assert size_label(16_000_000) == "16000000" and size_label(Size.of(65536)) == "64K"
    mnk = Size((("m", 256), ("n", 250_000)))
    assert (mnk.label, mnk.key, int(mnk), Size.from_key(mnk.key)) == ("m=256,n=250000", "m=256,n=250000",
                                                                    64_000_000, mnk)


def test_named_sizes_load(tmp_path):
    suite = load_suite(write_suite(tmp_path, MATMUL, MATMUL_SUITE))
    [spec] = suite.benches
    assert [s.env() for s in spec.sizes] == [{"m": 16, "n": 24, "k": 8}, {"m": 48, "n": 32, "k": 1024}]
    assert max(spec.sizes).key == "m=48,n=32,k=1024"
    assert (spec.flops, spec.bytes, spec.bytes_per_element) == ("2 * m * n * k", "4 * (m * k + k * n + m * n)", None)
    # The one-n format is a size named n: the old suites read as before.
    old = load_suite(write_suite(tmp_path, FMA, SUITE, stem="old")).benches[0]
    assert old.sizes == [4096, 1000] and all(s.single for s in old.sizes)


@pytest.mark.parametrize("change, message", [
    (('sizes = [{m = 16, n = 24, k = 8}, {m = 48, n = 32, k = "1K"}]', 'sizes = [{m = 16, n = 24, k = 8}, "4K"]'),
     "'sizes' mixes counts and tables: write every size as a table such as {m = 256, n = 256}"),
    (('{m = 48, n = 32, k = "1K"}', '{m = 48, k = 32, n = 8}'),
     "every size must name the same parameters in the same order (m, n, k); got m, k, n"),
    (('k = "1K"}', 'k = "1X"}'), "bad size k = '1X' (a positive count, optionally with K, M or G)"),
    (('{m = 16, n = 24, k = 8}, {m = 48, n = 32, k = "1K"}', '{np = 4}'),
     "size parameter 'np' must be an identifier other than isqrt, math, np, numpy"),
    (('flops = "2 * m * n * k"', 'flops = "2 * m * n * k"\nflops_per_element = 2'),
     "give 'flops_per_element' or 'flops', not both"),
    (('rtol = 1e-4', 'max_mismatch = 1.5'), "max_mismatch: expected a fraction of the values, at least 0 and below 1"),
    (('rtol = 1e-4', 'verify = "got ="'), "verify: not a valid expression: 'got ='"),
    (('flops = "2 * m * n * k"\nbytes = "4 * (m * k + k * n + m * n)"', ''),
     "missing required key 'bytes_per_element' (or bytes, flops_per_element, flops"),
])
def test_suite_errors(tmp_path, change, message):
    path = write_suite(tmp_path, MATMUL, MATMUL_SUITE.replace(*change))
    with pytest.raises(BenchError) as err:
        load_suite(path)
    assert f"{path}: [[bench]] matmul: " in str(err.value) and message in str(err.value)


def test_bytes_per_element_needs_an_n(tmp_path):
    suite = MATMUL_SUITE.replace('bytes = "4 * (m * k + k * n + m * n)"', "bytes_per_element = 4")
    suite = suite.replace("{m = 16, n = 24, k = 8}, {m = 48, n = 32, k = \"1K\"}", "{m = 16, q = 24, k = 8}")
    with pytest.raises(BenchError, match=r"'bytes_per_element' multiplies the size's n, which these sizes do not "
                                         r"have \(m, q, k\): write bytes = \"...\" as an expression"):
        load_suite(write_suite(tmp_path, MATMUL, suite))


def test_named_sizes_run_with_gflops_and_peak(tmp_path, peak_cache):
    report = run_suite(load_suite(write_suite(tmp_path, MATMUL, MATMUL_SUITE)), Options(), quick=True,
                       bandwidth=False, reps=5)
    assert report.peak_gflops == 100.0  # from the cache: measured once per CPU
    assert [(r.key, r.status) for r in report.results] == [("matmul[m=16,n=24,k=8]", "ok"),
                                                           ("matmul[m=48,n=32,k=1K]", "ok")]
    for r, (m, n, k) in zip(report.results, [(16, 24, 8), (48, 32, 1024)]):
        assert r.gflops == pytest.approx(2 * m * n * k / r.median_ns)
        assert r.gbps == pytest.approx(4 * (m * k + k * n + m * n) / r.median_ns)
        assert r.peak_fraction == pytest.approx(r.gflops / 100.0)
    doc = report.document()
    assert doc["peak"] == {"kernel": "fma_peak", "gflops": 100.0}
    assert doc["measurements"][1]["size"] == {"m": 48, "n": 32, "k": 1024}


def test_ea_bench_prints_gflops_beside_gbps(tmp_path, peak_cache):
    done = ea_bench(write_suite(tmp_path, MATMUL, MATMUL_SUITE), *FAST, env={"XDG_CACHE_HOME": str(peak_cache)})
    assert done.returncode == 0, done.stderr
    assert "FMA peak 100.0 GFLOP/s" in done.stdout
    header = next(line for line in done.stdout.splitlines() if "GFLOP/s" in line and "bench" in line)
    assert header.index("GB/s") < header.index("% of bw") < header.index("GFLOP/s") < header.index("% of peak")
    assert "m=48,n=32,k=1K" in done.stdout


def test_a_suite_without_flops_takes_no_peak(tmp_path, monkeypatch):
    monkeypatch.setattr(peak_mod, "measure_peak", lambda *a: pytest.fail("measured the peak"))
    report = run_suite(load_suite(write_suite(tmp_path)), Options(), quick=True, bandwidth=False, reps=5)
    assert report.peak_gflops is None and all(r.gflops is None for r in report.results)


def test_the_peak_is_measured_once_per_cpu(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    calls = []

    def fake(options, cancel=None):
        calls.append(options)
        return 123.4
    assert peak_mod.peak_gflops(Options(), measure_fn=fake) == 123.4
    assert peak_mod.peak_gflops(Options(), measure_fn=fake) == 123.4
    assert len(calls) == 1
    assert peak_mod.peak_gflops(Options(opt_level=1), measure_fn=fake) == 123.4  # another build: measured again
    assert len(calls) == 2
    stored = json.loads((tmp_path / "ea-bench" / "peak.json").read_text())
    assert stored[peak_mod.cache_key(Options())] == 123.4


@pytest.mark.needs_cpu
def test_the_fma_peak_kernel_runs():
    # At least a GFLOP/s on any machine that runs the suite; the chains converge (no inf/NaN).
    assert peak_mod.measure_peak(Options()) > 1.0


PERTURBED = SUITE.replace('reference = "a * b + c"', 'reference = "spoil(a * b + c)"').replace(
    '[[bench]]', 'prelude = """\ndef spoil(x):\n    x = x.copy()\n    x[::300] += 1\n    return x\n"""\n\n[[bench]]', 1)


def test_max_mismatch_allows_a_fraction_of_the_values(tmp_path):
    # 4 of 1000 values (0.4 %) differ: allowed at 0.005, not at 0.001.
    run = lambda suite: run_suite(load_suite(write_suite(tmp_path, FMA, suite)), Options(), sizes=[1000],  # noqa: E731
                                  quick=True, bandwidth=False, reps=5).results[0]
    assert run(PERTURBED.replace('check = "out"', 'check = "out"\nmax_mismatch = 0.005')).status == "ok"
    wrong = run(PERTURBED.replace('check = "out"', 'check = "out"\nmax_mismatch = 0.001'))
    assert wrong.status == "wrong"
    assert wrong.message.startswith("4 of 1000 values differ (rtol=1e-05, atol=1e-06, at most 1 allowed by "
                                    "max_mismatch=0.001); worst at index ")
    assert run(PERTURBED).message.startswith("4 of 1000 values differ (rtol=1e-05, atol=1e-06); worst")


@pytest.mark.parametrize("verify, status, message", [
    ("np.allclose(got, expected, atol=1e-5) and out.shape == (n,)", "ok", ""),
    ("np.abs(got - expected).max() < 1e-9 * 0", "wrong", "the verify expression 'np.abs(got - expected).max() < "
                                                       "1e-9 * 0' is false"),
    ("got.sum()", "wrong", "the verify expression 'got.sum()' gave float32, not True or False"),
    ("nope > 1", "wrong", "the verify expression 'nope > 1' failed: NameError: name 'nope' is not defined"),
])
def test_a_custom_verify_expression(tmp_path, verify, status, message):
    suite = SUITE.replace('check = "out"', f'check = "out"\nverify = "{verify}"')
    r = run_suite(load_suite(write_suite(tmp_path, FMA, suite)), Options(), sizes=[1000], quick=True,
                  bandwidth=False, reps=5).results[0]
    assert (r.status, r.message) == (status, message)


def test_sizes_asked_for_pick_the_benches_they_fit(tmp_path):
    suite = load_suite(write_suite(tmp_path, MATMUL, MATMUL_SUITE))
    with pytest.raises(BenchError, match=r"none of the sizes asked for has the parameters of a chosen bench "
                                         r"\(m, n, k\); --sizes gives one-n sizes"):
        run_suite(suite, Options(), sizes=[1000], quick=True, bandwidth=False, reps=5)
    small = Size((("m", 4), ("n", 4), ("k", 4)))
    report = run_suite(suite, Options(), sizes=[1000, small], quick=True, bandwidth=False, reps=5, peak=False)
    assert [r.key for r in report.results] == ["matmul[m=4,n=4,k=4]"] and report.peak_gflops is None
