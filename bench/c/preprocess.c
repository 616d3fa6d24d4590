/* u8 pixel -> [0, 1] -> (x - mean) * inv_std -> clamp to [lo, hi] */
#include <stdint.h>
void preprocess(const uint8_t *restrict px, float *restrict out, float mean, float inv_std,
                float lo, float hi, int n) {
    for (int i = 0; i < n; i++) {
        float v = (px[i] / 255.0f - mean) * inv_std;
        v = v < lo ? lo : v;
        out[i] = v > hi ? hi : v;
    }
}
