/* `ea bench fma.toml` harness for ../fma.ea (out = a * b + c).
 *
 * Checks the kernel against a scalar loop (exit 2 on a wrong element), then
 * times it at a cache-resident size (4K floats) and a DRAM-sized one (16M
 * floats) and prints one JSON line per size. A sample is n_inner back-to-back
 * calls; median/p10/p90 are per call over n_runs samples. EA_BENCH_QUICK=1
 * takes few samples (for tests, where only the plumbing matters). */
#define _POSIX_C_SOURCE 200112L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void fma_kernel(const float *a, const float *b, const float *c, float *out, int32_t n);

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static float *floats(int32_t n, int seed) {
    void *p = NULL;
    if (posix_memalign(&p, 64, (size_t)n * sizeof(float)) != 0) {
        fprintf(stderr, "cannot allocate %d floats\n", n);
        exit(1);
    }
    float *f = p;
    for (int32_t i = 0; i < n; i++) /* in [-1, 1), a different sequence per seed */
        f[i] = (float)(((int64_t)i * 7919 + seed * 997) % 2003) / 1024.0f - 1.0f;
    return f;
}

/* 1003 elements: 125 vector iterations and a 3-element scalar tail. */
static int verify(void) {
    const int32_t n = 1003;
    float *a = floats(n, 1), *b = floats(n, 2), *c = floats(n, 3), *out = floats(n, 4);
    int ok = 1;
    fma_kernel(a, b, c, out, n);
    for (int32_t i = 0; i < n && ok; i++) {
        double want = (double)a[i] * b[i] + c[i], err = out[i] - want;
        if (err < 0) err = -err;
        if (err > 1e-6 * (1.0 + (want < 0 ? -want : want))) {
            fprintf(stderr, "fma_kernel is wrong: out[%d] = %.9g, expected %.9g\n",
                    i, out[i], want);
            ok = 0;
        }
    }
    free(a), free(b), free(c), free(out);
    return ok;
}

static void bench(const char *label, int32_t n, int n_runs) {
    float *a = floats(n, 1), *b = floats(n, 2), *c = floats(n, 3), *out = floats(n, 4);
    int n_inner = n >= (1 << 22) ? 1 : (1 << 22) / n; /* a sample of ~16 MB of traffic */
    int64_t *ns = malloc((size_t)n_runs * sizeof *ns);
    for (int i = 0; i < 3 * n_inner; i++) fma_kernel(a, b, c, out, n); /* warm-up */
    for (int r = 0; r < n_runs; r++) {
        int64_t t0 = now_ns();
        for (int i = 0; i < n_inner; i++) fma_kernel(a, b, c, out, n);
        ns[r] = (now_ns() - t0) / n_inner;
    }
    qsort(ns, (size_t)n_runs, sizeof *ns, cmp_i64);
    int64_t median = ns[n_runs / 2];
    double bytes = 16.0 * n; /* three arrays read, one written */
    printf("{\"kernel\": \"%s\", \"median_ns\": %lld, \"p10_ns\": %lld, \"p90_ns\": %lld, "
           "\"n_inner\": %d, \"n_runs\": %d, \"gbps\": %.2f}\n",
           label, (long long)median, (long long)ns[n_runs / 10],
           (long long)ns[n_runs * 9 / 10], n_inner, n_runs, bytes / (double)median);
    free(a), free(b), free(c), free(out), free(ns);
}

int main(void) {
    if (!verify()) return 2;
    const char *quick = getenv("EA_BENCH_QUICK");
    int q = quick && *quick && *quick != '0';
    bench("fma_4K", 4096, q ? 5 : 101);
    bench("fma_16M", 16 << 20, q ? 3 : 21);
    return 0;
}
