/* y = a*x + y */
void saxpy(const float *restrict x, float *restrict y, float a, int n) {
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
