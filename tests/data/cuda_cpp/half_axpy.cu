// Half-precision arithmetic from the toolkit's own <cuda_fp16.h>.
#include <cuda_fp16.h>

extern "C" __global__ void half_axpy(__half* y, const __half* x, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hfma(__float2half(a), x[i], y[i]);
}
