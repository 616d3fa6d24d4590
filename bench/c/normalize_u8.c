/* u8 pixels to floats in [0, 1] */
#include <stdint.h>
void normalize(const uint8_t *restrict px, float *restrict out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = px[i] / 255.0f;
}
