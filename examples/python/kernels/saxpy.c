// y[i] = a * x[i] + y[i]: the CPU version, compiled to LLVM IR by clang-19.
void saxpy(long n, float a, const float* x, float* y) {
  for (long i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
