// Included by scale.cu as "scale_ops.cuh"; includes a header of its own.
#pragma once
#include "detail/bias.cuh"

namespace qd {
template <typename T>
__device__ inline T mul_add(T x, T a, T b) { return x * a + b; }
}  // namespace qd
