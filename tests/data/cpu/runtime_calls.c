#include <math.h>
#include <stdint.h>

// Kernels whose arithmetic LLVM lowers to calls on x86-64 without AVX-512:
// half and bfloat through compiler-rt's conversion builtins, 128-bit integer
// division and conversions through compiler-rt, long double math through libm.
// Each half or bfloat result is rounded to its type at every assignment.
// Results go through pointers: a C++ caller needs no _Float16 in its ABI.

// PREFIX_add, _mul, _from_f32, _from_f64, _to_f64 and _sum for type T.
#define SIXTEEN_BIT_KERNELS(PREFIX, T)                                             \
  void PREFIX##_add(int64_t n, const T* x, const T* y, T* out) {                   \
    for (int64_t i = 0; i < n; ++i) out[i] = x[i] + y[i];                          \
  }                                                                                \
  void PREFIX##_mul(int64_t n, const T* x, const T* y, T* out) {                   \
    for (int64_t i = 0; i < n; ++i) out[i] = x[i] * y[i];                          \
  }                                                                                \
  void PREFIX##_from_f32(int64_t n, const float* in, T* out) {                     \
    for (int64_t i = 0; i < n; ++i) out[i] = (T)in[i];                             \
  }                                                                                \
  void PREFIX##_from_f64(int64_t n, const double* in, T* out) {                    \
    for (int64_t i = 0; i < n; ++i) out[i] = (T)in[i];                             \
  }                                                                                \
  void PREFIX##_to_f64(int64_t n, const T* in, double* out) {                      \
    for (int64_t i = 0; i < n; ++i) out[i] = (double)in[i];                        \
  }                                                                                \
  void PREFIX##_sum(int64_t n, const T* x, T* sum) {                               \
    T s = 0;                                                                       \
    for (int64_t i = 0; i < n; ++i) s = s + x[i];                                  \
    *sum = s;                                                                      \
  }

SIXTEEN_BIT_KERNELS(h, _Float16)
SIXTEEN_BIT_KERNELS(b, __bf16)

// Quotient and remainder of 128-bit integers given as two 64-bit halves,
// and the 128-bit integer nearest below a double.
void i128_divmod(uint64_t a_hi, uint64_t a_lo, uint64_t b_hi, uint64_t b_lo, uint64_t* out) {
  const __int128 a = (__int128)(((unsigned __int128)a_hi << 64) | a_lo);
  const __int128 b = (__int128)(((unsigned __int128)b_hi << 64) | b_lo);
  const __int128 q = a / b, r = a % b;
  out[0] = (uint64_t)((unsigned __int128)q >> 64);
  out[1] = (uint64_t)q;
  out[2] = (uint64_t)((unsigned __int128)r >> 64);
  out[3] = (uint64_t)r;
}
void i128_from_f64(double d, uint64_t* out) {
  const __int128 v = (__int128)d;
  out[0] = (uint64_t)((unsigned __int128)v >> 64);
  out[1] = (uint64_t)v;
}

// out = { ldexpl(x, e), frexpl(x, &exponent) with the exponent, fmal(x, y, z) },
// each long double result as a double.
void long_double_math(double x, int e, double y, double z, double* out, int* exponent) {
  const long double lx = x;
  out[0] = (double)ldexpl(lx, e);
  out[1] = (double)frexpl(lx, exponent);
  out[2] = (double)fmal(lx, (long double)y, (long double)z);
}
