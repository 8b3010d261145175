// Loading and launching HSA code objects through the C ABI, on AMD GPUs
// (client/launch_hip.h). Since ABI 1.6.
#include "client/capi/capi_launch.h"

namespace capi = qdcache::capi;
using qdcache::capi::Guard;
using qdcache::client::HipRuntime;

extern "C" {

qdcache_status qdcache_hip_available(void) {
  return Guard([] { return qdcache::client::HipAvailable(); });
}

qdcache_status qdcache_hip_device_count(int* count) { return capi::DeviceCount<HipRuntime>(count); }

qdcache_status qdcache_hip_load(const void* image, size_t size, int device,
                                qdcache_hip_module** out) {
  return capi::LoadModule(image, size, device, out);
}

void qdcache_hip_module_free(qdcache_hip_module* module) { delete module; }

qdcache_status qdcache_hip_launch(const qdcache_hip_module* module, const char* name,
                                  const uint32_t grid[3], const uint32_t block[3],
                                  uint32_t shared_bytes, void** args, void* stream) {
  return capi::LaunchKernel(module, name, grid, block, shared_bytes, args, stream);
}

qdcache_status qdcache_hip_synchronize(int device) { return capi::Synchronize<HipRuntime>(device); }

qdcache_status qdcache_hip_buffer_create(size_t size, int device, qdcache_hip_buffer** out) {
  return capi::CreateBuffer(size, device, out);
}

void qdcache_hip_buffer_free(qdcache_hip_buffer* buffer) { delete buffer; }

uint64_t qdcache_hip_buffer_address(const qdcache_hip_buffer* buffer) {
  return capi::BufferAddress(buffer);
}

qdcache_status qdcache_hip_buffer_write(qdcache_hip_buffer* buffer, const void* host, size_t size) {
  return capi::WriteBuffer(buffer, host, size);
}

qdcache_status qdcache_hip_buffer_read(const qdcache_hip_buffer* buffer, void* host, size_t size) {
  return capi::ReadBuffer(buffer, host, size);
}

}  // extern "C"
