/* dot product */
float dot(const float *restrict a, const float *restrict b, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}
