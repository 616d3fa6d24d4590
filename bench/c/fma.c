/* out = a * b + c */
void fma_kernel(const float *restrict a, const float *restrict b, const float *restrict c,
                float *restrict out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] * b[i] + c[i];
}
