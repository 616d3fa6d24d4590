/* The C reference of bench/stream_store_bench.py: out[i] = x[i] * s with the
 * widest non-temporal store intrinsic, on data the caller aligns to the vector
 * (as C code using _mm256_stream_ps must); built with gcc -O3 -march=native.
 * A scalar loop finishes the last n % lanes elements; one sfence at the end. */
#include <immintrin.h>
#include <stdint.h>

#if defined(__AVX512F__) && defined(STREAM_REF_ZMM)
#define LANES 16
int stream_ref_lanes(void) { return LANES; }
void stream_ref(const float *x, float *out, float s, int64_t n) {
    __m512 vs = _mm512_set1_ps(s);
    int64_t i = 0;
    for (; i + LANES <= n; i += LANES)
        _mm512_stream_ps(out + i, _mm512_mul_ps(_mm512_loadu_ps(x + i), vs));
    for (; i < n; i++)
        out[i] = x[i] * s;
    _mm_sfence();
}
#else
#define LANES 8
int stream_ref_lanes(void) { return LANES; }
void stream_ref(const float *x, float *out, float s, int64_t n) {
    __m256 vs = _mm256_set1_ps(s);
    int64_t i = 0;
    for (; i + LANES <= n; i += LANES)
        _mm256_stream_ps(out + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), vs));
    for (; i < n; i++)
        out[i] = x[i] * s;
    _mm_sfence();
}
#endif
