"""`#[cfg]` variants of one function: every transformation sees only the
variant compiled for the target, so each site ident names one site and
`locate` finds it in that variant."""
from __future__ import annotations

from ea_compiler.analysis import analyze
from ea_compiler.tune.transforms import find_sites, locate

# The aarch64 variant comes first, so a lookup that ignored `#[cfg]` would find it first.
BODY = """\
export func dot(a: *restrict f32, b: *restrict f32, n: i32) -> f32 {
    let mut acc: VT = splat(0.0)
    let mut i: i32 = 0
    while i + LANES <= n {
        acc = load_VT(a, i) .* load_VT(b, i) .+ acc
        i = i + LANES
    }
    let mut total: f32 = reduce_add(acc)
    while i < n {
        total = a[i] * b[i] + total
        i = i + 1
    }
    return total
}
"""
SRC = "#[cfg(aarch64)]\n" + BODY.replace("VT", "f32x4").replace("LANES", "4") + \
    "\n#[cfg(x86_64)]\n" + BODY.replace("VT", "f32x8").replace("LANES", "8")
X86_START = SRC.index("#[cfg(x86_64)]")


def test_one_site_per_ident_in_the_variant_compiled_for_the_host():
    a = analyze(SRC, "t.ea")
    assert a.ok and a.options.arch == "x86_64"
    found = find_sites(a, "dot", only=("fma", "unroll"))
    idents = [s.ident for s in found]
    assert idents == ["fma:dot:0", "fma:dot:1", "unroll:dot:0"]
    assert all(s.start > X86_START for s in found)
    for s in found:
        assert locate(a, s.ident) == s
