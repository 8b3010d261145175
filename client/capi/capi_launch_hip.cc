// Loading and launching HSA code objects through the C ABI, on AMD GPUs
// (client/launch_hip.h). Since ABI 1.6.
#include <string>

#include "client/capi/capi_internal.h"

using qdcache::Status;
using qdcache::capi::Guard;
using qdcache::capi::Required;

extern "C" {

qdcache_status qdcache_hip_available(void) {
  return Guard([] { return qdcache::client::HipAvailable(); });
}

qdcache_status qdcache_hip_device_count(int* count) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(count, "count"));
    *count = 0;
    auto runtime = qdcache::client::HipRuntime::Get();
    if (!runtime.ok()) return runtime.status();
    *count = (*runtime)->device_count();
    return Status::Ok();
  });
}

qdcache_status qdcache_hip_load(const void* image, size_t size, int device,
                                qdcache_hip_module** out) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = nullptr;
    QDC_RETURN_IF_ERROR(Required(image, "image"));
    auto module = qdcache::client::HipModule::Load(
        std::string_view(static_cast<const char*>(image), size), device);
    if (!module.ok()) return module.status();
    *out = new qdcache_hip_module{std::move(module).value()};
    return Status::Ok();
  });
}

void qdcache_hip_module_free(qdcache_hip_module* module) { delete module; }

qdcache_status qdcache_hip_launch(const qdcache_hip_module* module, const char* name,
                                  const uint32_t grid[3], const uint32_t block[3],
                                  uint32_t shared_bytes, void** args, void* stream) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(module, "module"));
    QDC_RETURN_IF_ERROR(Required(name, "name"));
    QDC_RETURN_IF_ERROR(Required(grid, "grid"));
    QDC_RETURN_IF_ERROR(Required(block, "block"));
    auto kernel = module->module.Kernel(name);
    if (!kernel.ok()) return kernel.status();
    return qdcache::client::Launch(*kernel, {grid[0], grid[1], grid[2]},
                                   {block[0], block[1], block[2]}, shared_bytes, args, stream);
  });
}

qdcache_status qdcache_hip_synchronize(int device) {
  return Guard([&] {
    auto runtime = qdcache::client::HipRuntime::Get();
    if (!runtime.ok()) return runtime.status();
    return (*runtime)->Synchronize(device);
  });
}

qdcache_status qdcache_hip_buffer_create(size_t size, int device, qdcache_hip_buffer** out) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = nullptr;
    auto buffer = qdcache::client::HipDeviceBuffer::Allocate(size, device);
    if (!buffer.ok()) return buffer.status();
    *out = new qdcache_hip_buffer{std::move(buffer).value()};
    return Status::Ok();
  });
}

void qdcache_hip_buffer_free(qdcache_hip_buffer* buffer) { delete buffer; }

uint64_t qdcache_hip_buffer_address(const qdcache_hip_buffer* buffer) {
  return buffer == nullptr ? 0 : buffer->buffer.device_ptr();
}

qdcache_status qdcache_hip_buffer_write(qdcache_hip_buffer* buffer, const void* host, size_t size) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(buffer, "buffer"));
    if (host == nullptr && size != 0) return qdcache::InvalidArgument("host is NULL");
    return buffer->buffer.CopyFromHost(host, size);
  });
}

qdcache_status qdcache_hip_buffer_read(const qdcache_hip_buffer* buffer, void* host, size_t size) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(buffer, "buffer"));
    if (host == nullptr && size != 0) return qdcache::InvalidArgument("host is NULL");
    return buffer->buffer.CopyToHost(host, size);
  });
}

}  // extern "C"
