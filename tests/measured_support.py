"""One kernel, its suite and a recorded cycle run: what the editor and TUI
tests of predicted-vs-measured cycles (and the history read-back) share."""
from __future__ import annotations

from ea_compiler.bench import append_history, load_suite
from ea_compiler.bench.cycle_report import CycleReport, source_hash
from ea_compiler.bench.cycles import CycleMeasurement
from ea_compiler.options import Options

DOT = """export func dot(a: *restrict f32, b: *restrict f32, n: i32) -> f32 {
    let mut acc: f32x8 = splat(0.0)
    let mut i: i32 = 0
    while i + 8 <= n {
        acc = fma(load_f32x8(a, i), load_f32x8(b, i), acc)
        i = i + 8
    }
    return reduce_add(acc)
}
"""
SUITE = """[[bench]]
function = "dot"
sizes = ["4K"]
bytes_per_element = 8
reference = "np.dot(a, b)"
rtol = 1e-3
[bench.args]
a = { dtype = "float32", low = 0, high = 1 }
b = { dtype = "float32", low = 0, high = 1 }
"""
PAIR = "L1 ≈2.1 c/iter predicted · 2.3 measured · load ports"


def benched(tmp_path, text: str = DOT):
    """`k.ea` (DOT) with its suite and one recorded L1 cycle run of `text`
    (2.1 predicted, 2.3 measured); the kernel's path."""
    (tmp_path / "k.ea").write_text(DOT)
    (tmp_path / "k.bench.toml").write_text(SUITE)
    suite = load_suite(tmp_path / "k.bench.toml")
    row = CycleMeasurement("dot", "L1", 3072, 24576, 8, 2.3, 3.0, "slope", 2.1, "load ports", "model")
    append_history(suite, CycleReport(suite, Options(), 3.0, "test", source_hash(text.encode()), [row]).document())
    return tmp_path / "k.ea"
