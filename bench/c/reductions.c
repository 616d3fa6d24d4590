/* sum, maximum and minimum of a float array (n >= 1 for max and min) */
float sum_f32(const float *restrict x, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}

float max_f32(const float *restrict x, int n) {
    float m = x[0];
    for (int i = 1; i < n; i++)
        m = x[i] > m ? x[i] : m;
    return m;
}

float min_f32(const float *restrict x, int n) {
    float m = x[0];
    for (int i = 1; i < n; i++)
        m = x[i] < m ? x[i] : m;
    return m;
}
