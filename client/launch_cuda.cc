#include "client/launch_cuda.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace qdcache::client {

// The few driver API types and values used here, declared by hand (ABI of
// cuda.h) so that building needs no CUDA headers and running needs no driver.
namespace cuda_abi {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUjit_option = int;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUstream = CUstream_st*;

constexpr CUresult kSuccess = 0;
constexpr CUresult kErrorInvalidValue = 1;
constexpr CUresult kErrorOutOfMemory = 2;
constexpr CUresult kErrorNoDevice = 100;
constexpr CUresult kErrorInvalidDevice = 101;
constexpr CUresult kErrorInvalidImage = 200;
constexpr CUresult kErrorNoBinaryForGpu = 209;
constexpr CUresult kErrorInvalidPtx = 218;
constexpr CUresult kErrorUnsupportedPtxVersion = 222;
constexpr CUresult kErrorNotFound = 500;
constexpr CUresult kErrorLaunchOutOfResources = 701;

constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr CUjit_option kJitErrorLogBuffer = 5;
constexpr CUjit_option kJitErrorLogBufferSizeBytes = 6;
}  // namespace cuda_abi

using namespace cuda_abi;  // NOLINT: this file speaks the driver's ABI

struct CudaDriverApi {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, CUjit_option*, void**);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
  CUresult (*cuMemAlloc)(CUdeviceptr*, std::size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, std::size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, std::size_t);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuGetErrorName)(CUresult, const char**);
};

namespace {

constexpr const char* kDriverLibrary = "libcuda.so.1";

std::string ErrorText(const CudaDriverApi& api, CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  std::string out;
  if (api.cuGetErrorName(r, &name) == kSuccess && name)
    out = name;
  else
    out = "CUDA error " + std::to_string(r);
  if (api.cuGetErrorString(r, &text) == kSuccess && text) out += std::string(" (") + text + ")";
  return out;
}

Status CuStatus(const CudaDriverApi& api, CUresult r, std::string_view what) {
  std::string message = std::string(what) + ": " + ErrorText(api, r);
  switch (r) {
    case kErrorOutOfMemory:
    case kErrorLaunchOutOfResources:
      return ResourceExhausted(std::move(message));
    case kErrorNoDevice:
      return Unavailable(std::move(message));
    case kErrorNotFound:
      return NotFound(std::move(message));
    case kErrorInvalidValue:
    case kErrorInvalidDevice:
    case kErrorInvalidImage:
    case kErrorNoBinaryForGpu:
    case kErrorInvalidPtx:
    case kErrorUnsupportedPtxVersion:
      return InvalidArgument(std::move(message));
    default:
      return Internal(std::move(message));
  }
}

}  // namespace

struct CudaDriver::Contexts {
  std::mutex mu;
  std::vector<CUcontext> primary;  // guarded by mu; null until retained
};

struct CudaDriverLoader {
  static Expected<CudaDriver*> Load() {
    void* lib = ::dlopen(kDriverLibrary, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* e = ::dlerror();
      return Unavailable(std::string(kDriverLibrary) +
                         " not found (no NVIDIA driver): " + (e ? e : "dlopen failed"));
    }
    // Never dlclosed, and once the driver holds it never freed: the driver
    // stays for the process. Freed when loading fails (no device).
    auto api = std::make_unique<CudaDriverApi>();
    Status missing;
    auto resolve = [&](auto& fn, const char* symbol) {
      void* address = ::dlsym(lib, symbol);
      if (address == nullptr && missing.ok()) {
        missing =
            Unavailable(std::string(kDriverLibrary) + " lacks " + symbol + " (driver too old?)");
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(address);
    };
    resolve(api->cuInit, "cuInit");
    resolve(api->cuDriverGetVersion, "cuDriverGetVersion");
    resolve(api->cuDeviceGetCount, "cuDeviceGetCount");
    resolve(api->cuDeviceGet, "cuDeviceGet");
    resolve(api->cuDeviceGetAttribute, "cuDeviceGetAttribute");
    resolve(api->cuDeviceGetName, "cuDeviceGetName");
    resolve(api->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    resolve(api->cuCtxSetCurrent, "cuCtxSetCurrent");
    resolve(api->cuCtxSynchronize, "cuCtxSynchronize");
    resolve(api->cuModuleLoadDataEx, "cuModuleLoadDataEx");
    resolve(api->cuModuleUnload, "cuModuleUnload");
    resolve(api->cuModuleGetFunction, "cuModuleGetFunction");
    resolve(api->cuLaunchKernel, "cuLaunchKernel");
    resolve(api->cuMemAlloc, "cuMemAlloc_v2");
    resolve(api->cuMemFree, "cuMemFree_v2");
    resolve(api->cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    resolve(api->cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    resolve(api->cuGetErrorString, "cuGetErrorString");
    resolve(api->cuGetErrorName, "cuGetErrorName");
    if (!missing.ok()) return missing;

    CUresult r = api->cuInit(0);
    if (r == kErrorNoDevice)
      return Unavailable("no CUDA device (cuInit: " + ErrorText(*api, r) + ")");
    if (r != kSuccess)
      return Unavailable("CUDA driver failed to initialize: cuInit: " + ErrorText(*api, r));

    auto* driver = new CudaDriver();
    driver->api_ = api.release();
    const CudaDriverApi* loaded = driver->api_;
    (void)loaded->cuDriverGetVersion(&driver->driver_version_);
    r = loaded->cuDeviceGetCount(&driver->device_count_);
    if (r != kSuccess) driver->device_count_ = 0;
    driver->contexts_ = new CudaDriver::Contexts();
    driver->contexts_->primary.assign(static_cast<std::size_t>(driver->device_count_), nullptr);
    return driver;
  }
};

Expected<CudaDriver*> CudaDriver::Get() {
  static const Expected<CudaDriver*> driver = CudaDriverLoader::Load();
  return driver;
}

Status CudaAvailable() {
  QDC_ASSIGN_OR_RETURN(CudaDriver * driver, CudaDriver::Get());
  if (driver->device_count() == 0) return Unavailable("no CUDA device");
  return Status::Ok();
}

Status CudaDriver::CheckDevice(int device) const {
  if (device_count_ == 0) return Unavailable("no CUDA device");
  if (device < 0 || device >= device_count_) {
    return InvalidArgument("CUDA device " + std::to_string(device) + " does not exist (" +
                           std::to_string(device_count_) + " present)");
  }
  return Status::Ok();
}

Expected<int> CudaDriver::ComputeCapability(int device) const {
  QDC_RETURN_IF_ERROR(CheckDevice(device));
  CUdevice dev = 0;
  CUresult r = api_->cuDeviceGet(&dev, device);
  if (r != kSuccess) return CuStatus(*api_, r, "cuDeviceGet");
  int major = 0, minor = 0;
  r = api_->cuDeviceGetAttribute(&major, kAttrComputeCapabilityMajor, dev);
  if (r == kSuccess) r = api_->cuDeviceGetAttribute(&minor, kAttrComputeCapabilityMinor, dev);
  if (r != kSuccess) return CuStatus(*api_, r, "cuDeviceGetAttribute(compute capability)");
  return major * 10 + minor;
}

Expected<std::string> CudaDriver::DeviceName(int device) const {
  QDC_RETURN_IF_ERROR(CheckDevice(device));
  CUdevice dev = 0;
  CUresult r = api_->cuDeviceGet(&dev, device);
  if (r != kSuccess) return CuStatus(*api_, r, "cuDeviceGet");
  char name[256] = {};
  r = api_->cuDeviceGetName(name, sizeof name - 1, dev);
  if (r != kSuccess) return CuStatus(*api_, r, "cuDeviceGetName");
  return std::string(name);
}

Status CudaDriver::MakeCurrent(int device) {
  QDC_RETURN_IF_ERROR(CheckDevice(device));
  CUcontext ctx = nullptr;
  {
    std::lock_guard<std::mutex> lock(contexts_->mu);
    CUcontext& slot = contexts_->primary[static_cast<std::size_t>(device)];
    if (slot == nullptr) {
      CUdevice dev = 0;
      CUresult r = api_->cuDeviceGet(&dev, device);
      if (r != kSuccess) return CuStatus(*api_, r, "cuDeviceGet");
      r = api_->cuDevicePrimaryCtxRetain(&slot, dev);
      if (r != kSuccess) {
        slot = nullptr;
        return CuStatus(*api_, r, "cuDevicePrimaryCtxRetain");
      }
    }
    ctx = slot;
  }
  CUresult r = api_->cuCtxSetCurrent(ctx);
  if (r != kSuccess) return CuStatus(*api_, r, "cuCtxSetCurrent");
  return Status::Ok();
}

Status CudaDriver::Synchronize(int device) {
  QDC_RETURN_IF_ERROR(MakeCurrent(device));
  CUresult r = api_->cuCtxSynchronize();
  if (r != kSuccess) return CuStatus(*api_, r, "cuCtxSynchronize");
  return Status::Ok();
}

// ---- CudaModule ----

Expected<CudaModule> CudaModule::Load(std::string_view image, int device) {
  QDC_ASSIGN_OR_RETURN(CudaDriver * driver, CudaDriver::Get());
  if (image.empty()) return InvalidArgument("CUDA module image is empty");
  QDC_RETURN_IF_ERROR(driver->MakeCurrent(device));
  // A copy guarantees the terminating NUL the driver needs for PTX text.
  const std::string owned(image);
  char error_log[8192] = {};
  CUjit_option options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes};
  void* values[] = {error_log, reinterpret_cast<void*>(std::uintptr_t{sizeof error_log - 1})};
  CUmodule module = nullptr;
  const CudaDriverApi& api = driver->api();
  CUresult r = api.cuModuleLoadDataEx(&module, owned.c_str(), 2, options, values);
  if (r != kSuccess) {
    Status s = CuStatus(api, r, "cuModuleLoadDataEx");
    if (error_log[0] != '\0') s = Status(s.code(), s.message() + "; JIT log: " + error_log);
    return s;
  }
  return CudaModule(module, device);
}

CudaModule::CudaModule(CudaModule&& other) noexcept
    : module_(std::exchange(other.module_, nullptr)), device_(other.device_) {}

CudaModule& CudaModule::operator=(CudaModule&& other) noexcept {
  if (this != &other) {
    Reset();
    module_ = std::exchange(other.module_, nullptr);
    device_ = other.device_;
  }
  return *this;
}

CudaModule::~CudaModule() { Reset(); }

void CudaModule::Reset() {
  if (module_ == nullptr) return;
  auto driver = CudaDriver::Get();
  if (driver.ok() && (*driver)->MakeCurrent(device_).ok()) {
    (void)(*driver)->api().cuModuleUnload(static_cast<CUmodule>(module_));
  }
  module_ = nullptr;
}

Expected<CudaKernel> CudaModule::Kernel(std::string_view name) const {
  if (module_ == nullptr) return FailedPrecondition("CUDA module was moved from");
  QDC_ASSIGN_OR_RETURN(CudaDriver * driver, CudaDriver::Get());
  QDC_RETURN_IF_ERROR(driver->MakeCurrent(device_));
  CudaKernel kernel;
  kernel.name = std::string(name);
  kernel.device = device_;
  CUfunction function = nullptr;
  CUresult r = driver->api().cuModuleGetFunction(&function, static_cast<CUmodule>(module_),
                                                 kernel.name.c_str());
  if (r != kSuccess) return CuStatus(driver->api(), r, "kernel '" + kernel.name + "'");
  kernel.function = function;
  return kernel;
}

Status Launch(const CudaKernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes, void** args,
              void* stream) {
  if (kernel.function == nullptr) return InvalidArgument("launch of a null CUDA kernel");
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0) {
    return InvalidArgument("launch of '" + kernel.name + "' with a zero grid or block dimension");
  }
  QDC_ASSIGN_OR_RETURN(CudaDriver * driver, CudaDriver::Get());
  QDC_RETURN_IF_ERROR(driver->MakeCurrent(kernel.device));
  CUresult r = driver->api().cuLaunchKernel(static_cast<CUfunction>(kernel.function), grid.x,
                                            grid.y, grid.z, block.x, block.y, block.z, shared_bytes,
                                            static_cast<CUstream>(stream), args, nullptr);
  if (r != kSuccess) return CuStatus(driver->api(), r, "launching '" + kernel.name + "'");
  return Status::Ok();
}

// ---- DeviceBuffer ----

Expected<DeviceBuffer> DeviceBuffer::Allocate(std::size_t bytes, int device) {
  QDC_ASSIGN_OR_RETURN(CudaDriver * driver, CudaDriver::Get());
  if (bytes == 0) return InvalidArgument("device buffer of 0 bytes");
  QDC_RETURN_IF_ERROR(driver->MakeCurrent(device));
  CUdeviceptr ptr = 0;
  CUresult r = driver->api().cuMemAlloc(&ptr, bytes);
  if (r != kSuccess) {
    return CuStatus(driver->api(), r, "cuMemAlloc(" + std::to_string(bytes) + " bytes)");
  }
  return DeviceBuffer(ptr, bytes, device);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)),
      size_(std::exchange(other.size_, 0)),
      device_(other.device_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    Reset();
    ptr_ = std::exchange(other.ptr_, 0);
    size_ = std::exchange(other.size_, 0);
    device_ = other.device_;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { Reset(); }

void DeviceBuffer::Reset() {
  if (ptr_ == 0) return;
  auto driver = CudaDriver::Get();
  if (driver.ok() && (*driver)->MakeCurrent(device_).ok()) {
    (void)(*driver)->api().cuMemFree(ptr_);
  }
  ptr_ = 0;
  size_ = 0;
}

Status DeviceBuffer::CopyFromHost(const void* host, std::size_t bytes) {
  if (ptr_ == 0) return FailedPrecondition("device buffer was moved from");
  if (bytes > size_) {
    return InvalidArgument("copy of " + std::to_string(bytes) + " bytes into a device buffer of " +
                           std::to_string(size_));
  }
  QDC_ASSIGN_OR_RETURN(CudaDriver * driver, CudaDriver::Get());
  QDC_RETURN_IF_ERROR(driver->MakeCurrent(device_));
  CUresult r = driver->api().cuMemcpyHtoD(ptr_, host, bytes);
  if (r != kSuccess) return CuStatus(driver->api(), r, "cuMemcpyHtoD");
  return Status::Ok();
}

Status DeviceBuffer::CopyToHost(void* host, std::size_t bytes) const {
  if (ptr_ == 0) return FailedPrecondition("device buffer was moved from");
  if (bytes > size_) {
    return InvalidArgument("copy of " + std::to_string(bytes) + " bytes from a device buffer of " +
                           std::to_string(size_));
  }
  QDC_ASSIGN_OR_RETURN(CudaDriver * driver, CudaDriver::Get());
  QDC_RETURN_IF_ERROR(driver->MakeCurrent(device_));
  CUresult r = driver->api().cuMemcpyDtoH(host, ptr_, bytes);
  if (r != kSuccess) return CuStatus(driver->api(), r, "cuMemcpyDtoH");
  return Status::Ok();
}

}  // namespace qdcache::client
