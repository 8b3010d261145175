// A device-runtime call (CUDA graph conditional nodes): needs relocatable
// device code and libcudadevrt at link time.
extern "C" __global__ void keep_looping(const float* residual, float tolerance, cudaGraphConditionalHandle handle) {
  if (threadIdx.x == 0 && blockIdx.x == 0) cudaGraphSetConditional(handle, residual[0] > tolerance ? 1u : 0u);
}
