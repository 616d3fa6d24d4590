"""End to end: a kernel written with the removed maddubs_i32, migrated by the
checker's own quick fix, compiles and computes the i32 sums of four u8*i8
products that the replacement `madd_i16(maddubs_i16(a, b), ones)` defines."""
from __future__ import annotations

from ea_compiler import Options, analyze

from .harness import run_c

OLD = """export func dot4(a: *u8, b: *i8, out: *mut i32) {
    let x: u8x16 = load(a, 0)
    let y: i8x16 = load(b, 0)
    let r: i32x4 = maddubs_i32(x, y)
    store(out, 0, r)
}
"""

MAIN = r"""#include <stdio.h>
#include <stdint.h>
void dot4(const uint8_t *a, const int8_t *b, int32_t *out);
int main(void) {
    uint8_t a[16]; int8_t b[16]; int32_t out[4];
    for (int k = 0; k < 16; k++) { a[k] = (uint8_t)(k * 13 + 5); b[k] = (int8_t)(k * 7 - 50); }
    dot4(a, b, out);
    int bad = 0;
    for (int g = 0; g < 4; g++) {
        int32_t want = 0;
        for (int j = 0; j < 2; j++) {  /* pairs saturate to i16 first, as maddubs_i16 does */
            int32_t pair = a[4*g + 2*j] * b[4*g + 2*j] + a[4*g + 2*j + 1] * b[4*g + 2*j + 1];
            want += pair > 32767 ? 32767 : pair < -32768 ? -32768 : pair;
        }
        bad += out[g] != want;
        printf("%d ", out[g]);
    }
    printf("bad=%d\n", bad);
    return 0;
}
"""


def test_migrated_maddubs_i32_runs(tmp_path):
    a = analyze(OLD, "k.ea", Options())
    (d,) = a.diagnostics
    (fix,) = d.suggestions
    data = OLD.encode()
    new = (data[: fix.span.start] + fix.replacement.encode() + data[fix.span.end:]).decode()
    assert "madd_i16(maddubs_i16(x, y), splat(1))" in new
    out = run_c(new, MAIN, tmp_path)
    assert out.endswith("bad=0\n") and out != "0 0 0 0 bad=0\n", out
