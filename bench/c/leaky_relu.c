/* leaky ReLU (n is a multiple of 8, like the Eä kernel's `tail pad` contract) */
void leaky_relu(const float *restrict x, float *restrict out, float alpha, int n) {
    for (int i = 0; i < n; i++)
        out[i] = x[i] > 0.0f ? x[i] : alpha * x[i];
}
