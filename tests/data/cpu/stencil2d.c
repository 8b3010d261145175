#include <stdint.h>

// Row-major w x h grid. Interior: out = 0.2 * (centre + north + south + east +
// west); border cells are copied.
void stencil2d(const float* in, float* out, int64_t w, int64_t h) {
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      int64_t i = y * w + x;
      if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[i] = in[i];
      } else {
        out[i] = 0.2f * (in[i] + in[i - w] + in[i + w] + in[i + 1] + in[i - 1]);
      }
    }
  }
}
