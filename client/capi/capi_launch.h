// The handles of the C ABI's loaders and launchers (client/launch_cpu.h,
// client/launch_cuda.h, client/launch_hip.h) and the bodies of the GPU entry
// points that CUDA and HIP share (capi_launch.cc, capi_launch_hip.cc). Not
// installed; nothing here crosses the ABI.
#pragma once

#include <string_view>
#include <utility>

#include "client/capi/capi_guard.h"
#include "client/launch_cpu.h"
#include "client/launch_cuda.h"
#include "client/launch_hip.h"

struct qdcache_cpu_module {
  qdcache::client::CpuModule module;
};

struct qdcache_cuda_module {
  qdcache::client::CudaModule module;
};

struct qdcache_cuda_buffer {
  qdcache::client::DeviceBuffer buffer;
};

struct qdcache_hip_module {
  qdcache::client::HipModule module;
};

struct qdcache_hip_buffer {
  qdcache::client::HipDeviceBuffer buffer;
};

namespace qdcache::capi {

// ---- GPU launchers: the entry points alike for CUDA and HIP ----
// (capi_launch.cc, capi_launch_hip.cc). `Runtime` is CudaDriver or
// HipRuntime; a module or buffer handle (qdcache_cuda_module,
// qdcache_hip_buffer, ...) holds the launcher's C++ object, whose type it
// gives.

// The runtime's device count in `*count` (0 when it fails).
template <typename Runtime>
qdcache_status DeviceCount(int* count) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(count, "count"));
    *count = 0;
    auto runtime = Runtime::Get();
    if (!runtime.ok()) return runtime.status();
    *count = (*runtime)->device_count();
    return Status::Ok();
  });
}

template <typename Runtime>
qdcache_status Synchronize(int device) {
  return Guard([&] {
    auto runtime = Runtime::Get();
    if (!runtime.ok()) return runtime.status();
    return (*runtime)->Synchronize(device);
  });
}

// A new module handle in `*out` (NULL when loading fails).
template <typename ModuleHandle>
qdcache_status LoadModule(const void* image, size_t size, int device, ModuleHandle** out) {
  using Module = decltype(ModuleHandle::module);
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = nullptr;
    QDC_RETURN_IF_ERROR(Required(image, "image"));
    auto module = Module::Load(std::string_view(static_cast<const char*>(image), size), device);
    if (!module.ok()) return module.status();
    *out = new ModuleHandle{std::move(module).value()};
    return Status::Ok();
  });
}

template <typename ModuleHandle>
qdcache_status LaunchKernel(const ModuleHandle* module, const char* name, const uint32_t grid[3],
                            const uint32_t block[3], uint32_t shared_bytes, void** args,
                            void* stream) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(module, "module"));
    QDC_RETURN_IF_ERROR(Required(name, "name"));
    QDC_RETURN_IF_ERROR(Required(grid, "grid"));
    QDC_RETURN_IF_ERROR(Required(block, "block"));
    auto kernel = module->module.Kernel(name);
    if (!kernel.ok()) return kernel.status();
    return client::Launch(*kernel, {grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]},
                          shared_bytes, args, stream);
  });
}

// A new buffer handle in `*out` (NULL when allocating fails).
template <typename BufferHandle>
qdcache_status CreateBuffer(size_t size, int device, BufferHandle** out) {
  using Buffer = decltype(BufferHandle::buffer);
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = nullptr;
    auto buffer = Buffer::Allocate(size, device);
    if (!buffer.ok()) return buffer.status();
    *out = new BufferHandle{std::move(buffer).value()};
    return Status::Ok();
  });
}

template <typename BufferHandle>
qdcache_status WriteBuffer(BufferHandle* buffer, const void* host, size_t size) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(buffer, "buffer"));
    if (host == nullptr && size != 0) return InvalidArgument("host is NULL");
    return buffer->buffer.CopyFromHost(host, size);
  });
}

template <typename BufferHandle>
qdcache_status ReadBuffer(const BufferHandle* buffer, void* host, size_t size) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(buffer, "buffer"));
    if (host == nullptr && size != 0) return InvalidArgument("host is NULL");
    return buffer->buffer.CopyToHost(host, size);
  });
}

// The device address of a buffer handle; 0 for NULL.
template <typename BufferHandle>
uint64_t BufferAddress(const BufferHandle* buffer) {
  return buffer == nullptr ? 0 : buffer->buffer.device_ptr();
}

}  // namespace qdcache::capi
