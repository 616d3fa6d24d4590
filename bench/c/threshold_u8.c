/* binary threshold of an 8-bit image */
#include <stdint.h>
void threshold(const uint8_t *restrict px, uint8_t *restrict out, uint8_t t, int n) {
    for (int i = 0; i < n; i++)
        out[i] = px[i] > t ? 255 : 0;
}
