// What the test kernels need of HIP without the HIP headers (compiled with
// clang-19 -x hip -nogpuinc -nogpulib): the attributes and the work-item
// geometry, from clang's AMDGPU builtins.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
// HIP's __launch_bounds__(n), in clang's AMDGPU attribute.
#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))

static __device__ inline unsigned thread_x() { return __builtin_amdgcn_workitem_id_x(); }
static __device__ inline unsigned block_x() { return __builtin_amdgcn_workgroup_id_x(); }
static __device__ inline unsigned block_dim_x() { return __builtin_amdgcn_workgroup_size_x(); }

// __syncthreads(): LDS writes before it are seen by the workgroup after it.
static __device__ inline void sync_workgroup() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
