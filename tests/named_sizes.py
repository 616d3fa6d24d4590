"""A kernel whose suite has several named size parameters (`ea bench` and `ea tune` tests)."""
from __future__ import annotations

# A rectangular matmul, C (m×n) = A (m×k) · B (k×n), written naively.
MATMUL = """\
export func matmul(a: *restrict f32, b: *restrict f32, c: *restrict mut f32, m: i32, n: i32, k: i32) {
    let mut i: i32 = 0
    while i < m {
        let mut j: i32 = 0
        while j < n {
            let mut sum: f32 = 0.0
            let mut p: i32 = 0
            while p < k {
                sum = sum + a[i * k + p] * b[p * n + j]
                p = p + 1
            }
            c[i * n + j] = sum
            j = j + 1
        }
        i = i + 1
    }
}
"""

MATMUL_SUITE = """\
[[bench]]
function = "matmul"
sizes = [{m = 16, n = 24, k = 8}, {m = 48, n = 32, k = "1K"}]
flops = "2 * m * n * k"
bytes = "4 * (m * k + k * n + m * n)"
reference = "(a.reshape(m, k) @ b.reshape(k, n)).ravel()"
check = "c"
rtol = 1e-4
[bench.args]
a = { dtype = "float32", low = 0, high = 1, length = "m * k" }
b = { dtype = "float32", low = 0, high = 1, length = "k * n" }
c = { dtype = "float32", dist = "zeros", length = "m * n" }
m = "m"
n = "n"
k = "k"
"""
