#include "nvptx_builtins.h"

// y[i] = a * x[i] + y[i] for i < n.
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = block_x() * block_dim_x() + thread_x();
  if (i < n) y[i] = a * x[i] + y[i];
}
