// Loading and launching artifacts through the C ABI: CPU shared objects and
// CUDA cubins (client/launch_cpu.h, client/launch_cuda.h).
#include <string>

#include "client/capi/capi_internal.h"

using qdcache::Status;
using qdcache::capi::Guard;
using qdcache::capi::Required;

extern "C" {

qdcache_status qdcache_cpu_load(const void* elf, size_t size, const char* name_hint, qdcache_cpu_module** out) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = nullptr;
    QDC_RETURN_IF_ERROR(Required(elf, "elf"));
    auto module = qdcache::client::CpuModule::Load(std::string_view(static_cast<const char*>(elf), size),
                                                   name_hint != nullptr ? name_hint : "kernel");
    if (!module.ok()) return module.status();
    *out = new qdcache_cpu_module{std::move(module).value()};
    return Status::Ok();
  });
}

qdcache_status qdcache_cpu_symbol(const qdcache_cpu_module* module, const char* name, void** address) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(module, "module"));
    QDC_RETURN_IF_ERROR(Required(name, "name"));
    QDC_RETURN_IF_ERROR(Required(address, "address"));
    *address = nullptr;
    auto symbol = module->module.Symbol(name);
    if (!symbol.ok()) return symbol.status();
    *address = *symbol;
    return Status::Ok();
  });
}

void qdcache_cpu_module_free(qdcache_cpu_module* module) { delete module; }

qdcache_status qdcache_cuda_available(void) {
  return Guard([] { return qdcache::client::CudaAvailable(); });
}

qdcache_status qdcache_cuda_device_count(int* count) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(count, "count"));
    *count = 0;
    auto driver = qdcache::client::CudaDriver::Get();
    if (!driver.ok()) return driver.status();
    *count = (*driver)->device_count();
    return Status::Ok();
  });
}

qdcache_status qdcache_cuda_compute_capability(int device, int* capability) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(capability, "capability"));
    *capability = 0;
    auto driver = qdcache::client::CudaDriver::Get();
    if (!driver.ok()) return driver.status();
    auto cc = (*driver)->ComputeCapability(device);
    if (!cc.ok()) return cc.status();
    *capability = *cc;
    return Status::Ok();
  });
}

qdcache_status qdcache_cuda_load(const void* image, size_t size, int device, qdcache_cuda_module** out) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = nullptr;
    QDC_RETURN_IF_ERROR(Required(image, "image"));
    auto module = qdcache::client::CudaModule::Load(std::string_view(static_cast<const char*>(image), size),
                                                    device);
    if (!module.ok()) return module.status();
    *out = new qdcache_cuda_module{std::move(module).value()};
    return Status::Ok();
  });
}

void qdcache_cuda_module_free(qdcache_cuda_module* module) { delete module; }

qdcache_status qdcache_cuda_launch(const qdcache_cuda_module* module, const char* name, const uint32_t grid[3],
                                   const uint32_t block[3], uint32_t shared_bytes, void** args, void* stream) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(module, "module"));
    QDC_RETURN_IF_ERROR(Required(name, "name"));
    QDC_RETURN_IF_ERROR(Required(grid, "grid"));
    QDC_RETURN_IF_ERROR(Required(block, "block"));
    auto kernel = module->module.Kernel(name);
    if (!kernel.ok()) return kernel.status();
    return qdcache::client::Launch(*kernel, {grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]},
                                   shared_bytes, args, stream);
  });
}

qdcache_status qdcache_cuda_synchronize(int device) {
  return Guard([&] {
    auto driver = qdcache::client::CudaDriver::Get();
    if (!driver.ok()) return driver.status();
    return (*driver)->Synchronize(device);
  });
}

qdcache_status qdcache_cuda_buffer_create(size_t size, int device, qdcache_cuda_buffer** out) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = nullptr;
    auto buffer = qdcache::client::DeviceBuffer::Allocate(size, device);
    if (!buffer.ok()) return buffer.status();
    *out = new qdcache_cuda_buffer{std::move(buffer).value()};
    return Status::Ok();
  });
}

void qdcache_cuda_buffer_free(qdcache_cuda_buffer* buffer) { delete buffer; }

uint64_t qdcache_cuda_buffer_address(const qdcache_cuda_buffer* buffer) {
  return buffer == nullptr ? 0 : buffer->buffer.device_ptr();
}

qdcache_status qdcache_cuda_buffer_write(qdcache_cuda_buffer* buffer, const void* host, size_t size) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(buffer, "buffer"));
    if (host == nullptr && size != 0) return qdcache::InvalidArgument("host is NULL");
    return buffer->buffer.CopyFromHost(host, size);
  });
}

qdcache_status qdcache_cuda_buffer_read(const qdcache_cuda_buffer* buffer, void* host, size_t size) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(buffer, "buffer"));
    if (host == nullptr && size != 0) return qdcache::InvalidArgument("host is NULL");
    return buffer->buffer.CopyToHost(host, size);
  });
}

}  // extern "C"
