#include "amdgpu_builtins.h"

extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = block_x() * block_dim_x() + thread_x();
  if (i < n) y[i] = a * x[i] + y[i];
}
