#include "nvptx_builtins.h"

// One partial sum per 256-thread block: out[blockIdx.x] = sum of its 256 inputs
// (inputs past n count as 0).
extern "C" __global__ __launch_bounds__(256) void block_reduce(const float* in, float* out, int n) {
  __shared__ float partial[256];
  int t = thread_x();
  int i = block_x() * 256 + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = 128; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[block_x()] = partial[0];
}
