"""docs/idioms/neon-runtime-permute.md, run: the page's own Eä blocks (the
replacements the AArch64 `permute_runtime` error points to) cross-compiled
for AArch64 and run under qemu, and its two-architecture `permute8` also
built for this x86-64 host; every result is compared with NumPy's
`table[idx & mask]`, never with the compiler."""
from __future__ import annotations

import re

import numpy as np

from .aarch64_harness import C_PRELUDE, ROOT, c_array, c_float, f32s, ints, needs_qemu, run_arm
from .harness import run_c

PAGE = ROOT / "docs" / "idioms" / "neon-runtime-permute.md"


def block(name: str) -> str:
    """The page's ```ea block that defines `name`."""
    blocks = re.findall(r"^```ea[^\n]*\n(.*?)^```", PAGE.read_text(encoding="utf-8"), flags=re.S | re.M)
    (src,) = [b for b in blocks if re.search(rf"\b(kernel|func) {name}\(", b)]
    return src


TABLE = np.array([1.5, -2.25, 3.0, 40.0, -0.5, 6.125, 7e10, -8.0], dtype=np.float32)
IDX = np.array([0, 7, 3, -1, 9, 15, 100, -8, 5, 2, 6], dtype=np.int32)  # 11: two steps of 4 and a tail of 3


LOOKUP8_MAIN = (c_array("int32_t", "idx", IDX) + c_array("float", "table", TABLE, c_float) + r"""
void lookup8(const int32_t *idx, const float *table, float *out, int32_t n);
int main(void) {
    float out[11];
    lookup8(idx, table, out, 11);
    for (int k = 0; k < 11; k++) pf(out[k]);
    nl();
    return 0;
}
""")


@needs_qemu
def test_compare_select_lookup_on_neon(tmp_path):
    out = run_arm(tmp_path, block("lookup8"), LOOKUP8_MAIN)
    assert out == [f32s(TABLE[IDX & 7])]


PX = np.array([(37 * k + 11) % 256 for k in range(37)], dtype=np.uint8)  # 37: two steps of 16, tail of 5
LUT = np.array([(k * k + 3) % 256 for k in range(16)], dtype=np.uint8)

LUT16_MAIN = (c_array("uint8_t", "px", PX) + c_array("uint8_t", "lut", LUT) + r"""
void lut16(const uint8_t *px, const uint8_t *lut, uint8_t *out, int32_t n);
int main(void) {
    uint8_t out[37];
    lut16(px, lut, out, 37);
    for (int k = 0; k < 37; k++) pi(out[k]);
    nl();
    return 0;
}
""")


@needs_qemu
def test_byte_table_lookup_on_neon(tmp_path):
    assert PX.max() > 127  # indices with bit 7 set are masked too
    out = run_arm(tmp_path, block("lut16"), LUT16_MAIN)
    assert out == [ints(LUT[PX & 15])]


IDX8 = np.array([7, 8, -3, 2, 17, 0, 5, 4], dtype=np.int32)

PERMUTE8_MAIN = (c_array("int32_t", "idx", IDX8) + c_array("float", "table", TABLE, c_float) + r"""
void permute8(const float *t, const int32_t *idx, float *out);
int main(void) {
    float out[8];
    permute8(table, idx, out);
    for (int k = 0; k < 8; k++) pf(out[k]);
    nl();
    return 0;
}
""")


@needs_qemu
def test_two_architecture_permute_on_neon(tmp_path):
    assert run_arm(tmp_path, block("permute8"), PERMUTE8_MAIN) == [f32s(TABLE[IDX8 & 7])]


def test_two_architecture_permute_on_x86(tmp_path):
    out = run_c(block("permute8"), C_PRELUDE + PERMUTE8_MAIN, tmp_path, "--target=haswell")
    assert out.splitlines() == [f32s(TABLE[IDX8 & 7])]
