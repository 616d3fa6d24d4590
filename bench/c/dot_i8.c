/* u8 x i8 dot product in int32 */
#include <stdint.h>
int32_t dot_u8i8(const uint8_t *restrict a, const int8_t *restrict w, int n) {
    int32_t s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * w[i];
    return s;
}
