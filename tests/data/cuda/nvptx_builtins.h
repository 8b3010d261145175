// The few CUDA spellings the kernels in this folder need, without CUDA headers.
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __launch_bounds__(n) __attribute__((launch_bounds(n)))

static __device__ int thread_x() { return __nvvm_read_ptx_sreg_tid_x(); }
static __device__ int thread_y() { return __nvvm_read_ptx_sreg_tid_y(); }
static __device__ int block_x() { return __nvvm_read_ptx_sreg_ctaid_x(); }
static __device__ int block_y() { return __nvvm_read_ptx_sreg_ctaid_y(); }
static __device__ int block_dim_x() { return __nvvm_read_ptx_sreg_ntid_x(); }
static __device__ int block_dim_y() { return __nvvm_read_ptx_sreg_ntid_y(); }
