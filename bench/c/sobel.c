/* Sobel edge magnitude on the interior of a w x h image */
#include <math.h>
void sobel(const float *restrict img, float *restrict out, int w, int h) {
    for (int y = 1; y < h - 1; y++) {
        for (int x = 1; x < w - 1; x++) {
            const float *r0 = img + (y - 1) * w, *r1 = img + y * w, *r2 = img + (y + 1) * w;
            float gx = (r0[x + 1] - r0[x - 1]) + 2.0f * (r1[x + 1] - r1[x - 1]) + (r2[x + 1] - r2[x - 1]);
            float gy = (r2[x - 1] - r0[x - 1]) + 2.0f * (r2[x] - r0[x]) + (r2[x + 1] - r0[x + 1]);
            out[y * w + x] = sqrtf(gx * gx + gy * gy);
        }
    }
}
