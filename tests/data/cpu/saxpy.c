#include <stdint.h>

// y[i] = a * x[i] + y[i] for i < n.
void saxpy(int64_t n, float a, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
