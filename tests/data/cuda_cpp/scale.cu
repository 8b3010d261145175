// A templated kernel launched through name expressions ("scale<float>"),
// with a local header included by a relative name.
#include "scale_ops.cuh"

template <typename T>
__global__ void scale(T* x, T factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = qd::mul_add(x[i], factor, T(SCALE_BIAS));
}

template __global__ void scale<float>(float*, float, int);
template __global__ void scale<double>(double*, double, int);
