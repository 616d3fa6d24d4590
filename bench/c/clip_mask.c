/* clamp from above */
void clip(const float *v, float *o, float hi, int n) {
    for (int j = 0; j < n; j++)
        o[j] = v[j] < hi ? v[j] : hi;
}
