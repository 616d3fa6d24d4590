/* root-mean-square of every 8-sample frame */
#include <math.h>
void frame_rms(const float *restrict x, float *restrict out, int frames) {
    for (int f = 0; f < frames; f++) {
        float s = 0.0f;
        for (int j = 0; j < 8; j++)
            s += x[8 * f + j] * x[8 * f + j];
        out[f] = sqrtf(s / 8.0f);
    }
}
