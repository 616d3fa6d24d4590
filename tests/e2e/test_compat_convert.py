"""End to end: the extension conversions to_u8, to_i8, to_u16, to_u32, to_u64
(int -> int keeps the low bits when narrowing and extends by the source's
signedness when widening; float -> int truncates toward zero), and a u8
kernel whose scalar tail uses to_u8 and agrees with its wrapping vector body."""
from __future__ import annotations

from .harness import run_c

CONVERSIONS = """export func i8_of_i32(x: i32) -> i8 { return to_i8(x) }
export func u8_of_i32(x: i32) -> u8 { return to_u8(x) }
export func u8_of_f32(x: f32) -> u8 { return to_u8(x) }
export func i8_of_f32(x: f32) -> i8 { return to_i8(x) }
export func u16_of_i32(x: i32) -> u16 { return to_u16(x) }
export func u16_of_f64(x: f64) -> u16 { return to_u16(x) }
export func u32_of_i32(x: i32) -> u32 { return to_u32(x) }
export func u32_of_f32(x: f32) -> u32 { return to_u32(x) }
export func u64_of_i32(x: i32) -> u64 { return to_u64(x) }
export func u64_of_u32(x: u32) -> u64 { return to_u64(x) }
export func u64_of_u8(x: u8) -> u64 { return to_u64(x) }
export func i8_of_u64(x: u64) -> i8 { return to_i8(x) }
"""

CONVERSIONS_MAIN = r"""#include <stdio.h>
#include <stdint.h>
int8_t i8_of_i32(int32_t); uint8_t u8_of_i32(int32_t); uint8_t u8_of_f32(float); int8_t i8_of_f32(float);
uint16_t u16_of_i32(int32_t); uint16_t u16_of_f64(double); uint32_t u32_of_i32(int32_t);
uint32_t u32_of_f32(float); uint64_t u64_of_i32(int32_t); uint64_t u64_of_u32(uint32_t);
uint64_t u64_of_u8(uint8_t); int8_t i8_of_u64(uint64_t);
int main(void) {
    printf("%d %d %d\n", i8_of_i32(300), i8_of_i32(200), i8_of_i32(-5));
    printf("%u %u %u\n", u8_of_i32(300), u8_of_i32(-1), u8_of_i32(255));
    printf("%u %d %d\n", u8_of_f32(200.7f), i8_of_f32(-3.9f), i8_of_f32(127.0f));
    printf("%u %u %u\n", u16_of_i32(-1), u16_of_i32(70000), u16_of_f64(65535.0));
    printf("%u %u\n", u32_of_i32(-1), u32_of_f32(3.0e9f));
    printf("%llu %llu %llu %d\n", (unsigned long long)u64_of_i32(-1), (unsigned long long)u64_of_u32(4294967295u),
           (unsigned long long)u64_of_u8(255), i8_of_u64(0x1234567890ABCDEFull));
    return 0;
}
"""


def test_conversions(tmp_path):
    assert run_c(CONVERSIONS, CONVERSIONS_MAIN, tmp_path) == (
        "44 -56 -5\n"
        "44 255 255\n"
        "200 -3 127\n"
        "65535 4464 65535\n"
        "4294967295 3000000000\n"
        "18446744073709551615 4294967295 255 -17\n")


KERNEL = """export kernel brighten(src: *u8, out: *mut u8, add: u8)
    over i in n step 16
    tail scalar { out[i] = to_u8(to_i32(src[i]) + to_i32(add)) }
{
    let v: u8x16 = load(src, i)
    store(out, i, v .+ splat(add))
}
"""

KERNEL_MAIN = r"""#include <stdio.h>
#include <stdint.h>
void brighten(const uint8_t *src, uint8_t *out, uint8_t add, int32_t n);
int main(void) {
    int sizes[] = {0, 5, 21, 37};
    for (int s = 0; s < 4; s++) {
        int n = sizes[s];
        uint8_t src[64], out[64];
        for (int k = 0; k < 64; k++) { src[k] = (uint8_t)(k * 7 + 200); out[k] = 0xAA; }
        brighten(src, out, 60, n);
        int bad = 0;
        for (int k = 0; k < n; k++) bad += out[k] != (uint8_t)(src[k] + 60);
        for (int k = n; k < 64; k++) bad += out[k] != 0xAA;
        printf("n=%d bad=%d tail=%u,%u\n", n, bad, out[n > 0 ? n - 1 : 0], out[n > 0 ? n - 2 : 0]);
    }
    return 0;
}
"""


def test_u8_kernel_with_to_u8_scalar_tail(tmp_path):
    # n = 5, 21 and 37 leave 5 elements to the scalar tail; src + 60 wraps past 255 in both parts.
    out = run_c(KERNEL, KERNEL_MAIN, tmp_path)
    assert out == ("n=0 bad=0 tail=170,170\n"
                   "n=5 bad=0 tail=32,25\n"
                   "n=21 bad=0 tail=144,137\n"
                   "n=37 bad=0 tail=0,249\n")
