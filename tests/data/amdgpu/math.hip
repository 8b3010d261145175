#include "amdgpu_builtins.h"

// Calls ROCm's device library (ocml), as HIP's expf and sinf do.
extern "C" __device__ float __ocml_exp_f32(float);
extern "C" __device__ float __ocml_sin_f32(float);

extern "C" __global__ void wave(const float* x, float* y, int n) {
  int i = block_x() * block_dim_x() + thread_x();
  if (i < n) y[i] = __ocml_exp_f32(-x[i]) * __ocml_sin_f32(x[i]);
}
