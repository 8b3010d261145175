#include <stdint.h>

// Sum of the n floats at x.
float block_reduce(const float* x, int64_t n) {
  float sum = 0.0f;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  return sum;
}
