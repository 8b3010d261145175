// Loading and launching artifacts through the C ABI: CPU shared objects and
// CUDA cubins (client/launch_cpu.h, client/launch_cuda.h).
#include <string>

#include "client/capi/capi_launch.h"

namespace capi = qdcache::capi;
using qdcache::Status;
using qdcache::capi::Guard;
using qdcache::capi::Required;
using qdcache::client::CudaDriver;

extern "C" {

qdcache_status qdcache_cpu_load(const void* elf, size_t size, const char* name_hint,
                                qdcache_cpu_module** out) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(out, "out"));
    *out = nullptr;
    QDC_RETURN_IF_ERROR(Required(elf, "elf"));
    auto module =
        qdcache::client::CpuModule::Load(std::string_view(static_cast<const char*>(elf), size),
                                         name_hint != nullptr ? name_hint : "kernel");
    if (!module.ok()) return module.status();
    *out = new qdcache_cpu_module{std::move(module).value()};
    return Status::Ok();
  });
}

qdcache_status qdcache_cpu_symbol(const qdcache_cpu_module* module, const char* name,
                                  void** address) {
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
  return capi::DeviceCount<CudaDriver>(count);
}

qdcache_status qdcache_cuda_compute_capability(int device, int* capability) {
  return Guard([&] {
    QDC_RETURN_IF_ERROR(Required(capability, "capability"));
    *capability = 0;
    auto driver = CudaDriver::Get();
    if (!driver.ok()) return driver.status();
    auto cc = (*driver)->ComputeCapability(device);
    if (!cc.ok()) return cc.status();
    *capability = *cc;
    return Status::Ok();
  });
}

qdcache_status qdcache_cuda_load(const void* image, size_t size, int device,
                                 qdcache_cuda_module** out) {
  return capi::LoadModule(image, size, device, out);
}

void qdcache_cuda_module_free(qdcache_cuda_module* module) { delete module; }

qdcache_status qdcache_cuda_launch(const qdcache_cuda_module* module, const char* name,
                                   const uint32_t grid[3], const uint32_t block[3],
                                   uint32_t shared_bytes, void** args, void* stream) {
  return capi::LaunchKernel(module, name, grid, block, shared_bytes, args, stream);
}

qdcache_status qdcache_cuda_synchronize(int device) {
  return capi::Synchronize<CudaDriver>(device);
}

qdcache_status qdcache_cuda_buffer_create(size_t size, int device, qdcache_cuda_buffer** out) {
  return capi::CreateBuffer(size, device, out);
}

void qdcache_cuda_buffer_free(qdcache_cuda_buffer* buffer) { delete buffer; }

uint64_t qdcache_cuda_buffer_address(const qdcache_cuda_buffer* buffer) {
  return capi::BufferAddress(buffer);
}

qdcache_status qdcache_cuda_buffer_write(qdcache_cuda_buffer* buffer, const void* host,
                                         size_t size) {
  return capi::WriteBuffer(buffer, host, size);
}

qdcache_status qdcache_cuda_buffer_read(const qdcache_cuda_buffer* buffer, void* host,
                                        size_t size) {
  return capi::ReadBuffer(buffer, host, size);
}

}  // extern "C"
