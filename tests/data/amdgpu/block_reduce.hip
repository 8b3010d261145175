#include "amdgpu_builtins.h"

// Sums each workgroup's 256 values in LDS; one partial sum per workgroup.
extern "C" __global__ __launch_bounds__(256) void block_reduce(const float* in, float* out, int n) {
  __shared__ float partial[256];
  unsigned t = thread_x();
  unsigned i = block_x() * 256 + t;
  partial[t] = i < (unsigned)n ? in[i] : 0.0f;
  sync_workgroup();
  for (unsigned stride = 128; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    sync_workgroup();
  }
  if (t == 0) out[block_x()] = partial[0];
}

extern "C" __global__ void scale(float* data, float factor, int n) {
  int i = block_x() * block_dim_x() + thread_x();
  if (i < n) data[i] *= factor;
}
