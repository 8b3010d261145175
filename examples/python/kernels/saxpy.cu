// y[i] = a * x[i] + y[i]: the CUDA version, compiled to NVPTX LLVM IR by
// clang-19 without the CUDA headers (-nocudainc), so these few spellings
// stand in for them.
#define __global__ __attribute__((global))

extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
  if (i < n) y[i] = a * x[i] + y[i];
}
