// A kernel as users write them for HIP (a struct argument, a template, LDS,
// a barrier, an explicit instantiation), without the HIP headers: the
// integration and fidelity tests compile it with clang-19 at test time.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
struct Pair { float lo, hi; };
template <typename T> __device__ T clamp(T v, T lo, T hi) { return v < lo ? lo : v > hi ? hi : v; }
extern "C" __global__ void softclip(const float* x, float* y, Pair range, int n) {
  __shared__ float tile[128];
  int t = __builtin_amdgcn_workitem_id_x();
  int i = __builtin_amdgcn_workgroup_id_x() * 128 + t;
  tile[t] = i < n ? x[i] : 0.0f;
  __builtin_amdgcn_s_barrier();
  if (i < n) y[i] = clamp(__builtin_expf(tile[t]) - tile[127 - t], range.lo, range.hi);
}
template <int N> __global__ void fill(int* out) { out[__builtin_amdgcn_workitem_id_x()] = N; }
template __global__ void fill<7>(int*);
