#include "client/launch_cuda.h"

#include <dlfcn.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "client/launch_gpu.h"

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
  if (api.cuGetErrorName(r, &name) != kSuccess) name = nullptr;
  if (api.cuGetErrorString(r, &text) != kSuccess) text = nullptr;
  return gpu::ErrorText("CUDA", r, name, text);
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

// The driver as the code it shares with HIP (launch_gpu.h) calls it.
struct CudaCalls {
  using Runtime = CudaDriver;
  using Api = CudaDriverApi;
  using Error = CUresult;
  using Device = CUdevice;
  using Module = CUmodule;
  using Function = CUfunction;
  using Stream = CUstream;
  using DevicePtr = CUdeviceptr;
  static constexpr const char* kName = "CUDA";
  static constexpr Error kSuccess = cuda_abi::kSuccess;
  static Status ToStatus(const Api& api, Error r, std::string_view what) {
    return CuStatus(api, r, what);
  }
  static constexpr gpu::Entry kDeviceGet{&Api::cuDeviceGet, "cuDeviceGet"};
  static constexpr gpu::Entry kDeviceGetName{&Api::cuDeviceGetName, "cuDeviceGetName"};
  static constexpr gpu::Entry kSynchronize{&Api::cuCtxSynchronize, "cuCtxSynchronize"};
  static constexpr gpu::Entry kModuleGetFunction{&Api::cuModuleGetFunction, "cuModuleGetFunction"};
  static constexpr gpu::Entry kModuleUnload{&Api::cuModuleUnload, "cuModuleUnload"};
  static constexpr gpu::Entry kLaunchKernel{&Api::cuLaunchKernel, "cuLaunchKernel"};
  static constexpr gpu::Entry kMalloc{&Api::cuMemAlloc, "cuMemAlloc"};
  static constexpr gpu::Entry kFree{&Api::cuMemFree, "cuMemFree"};
  static constexpr gpu::Entry kMemcpyHtoD{&Api::cuMemcpyHtoD, "cuMemcpyHtoD"};
  static constexpr gpu::Entry kMemcpyDtoH{&Api::cuMemcpyDtoH, "cuMemcpyDtoH"};
};

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
    gpu::EntryPoints entry_points(lib, kDriverLibrary, "driver too old?");
    entry_points.Resolve(api->cuInit, "cuInit");
    entry_points.Resolve(api->cuDriverGetVersion, "cuDriverGetVersion");
    entry_points.Resolve(api->cuDeviceGetCount, "cuDeviceGetCount");
    entry_points.Resolve(api->cuDeviceGet, "cuDeviceGet");
    entry_points.Resolve(api->cuDeviceGetAttribute, "cuDeviceGetAttribute");
    entry_points.Resolve(api->cuDeviceGetName, "cuDeviceGetName");
    entry_points.Resolve(api->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    entry_points.Resolve(api->cuCtxSetCurrent, "cuCtxSetCurrent");
    entry_points.Resolve(api->cuCtxSynchronize, "cuCtxSynchronize");
    entry_points.Resolve(api->cuModuleLoadDataEx, "cuModuleLoadDataEx");
    entry_points.Resolve(api->cuModuleUnload, "cuModuleUnload");
    entry_points.Resolve(api->cuModuleGetFunction, "cuModuleGetFunction");
    entry_points.Resolve(api->cuLaunchKernel, "cuLaunchKernel");
    entry_points.Resolve(api->cuMemAlloc, "cuMemAlloc_v2");
    entry_points.Resolve(api->cuMemFree, "cuMemFree_v2");
    entry_points.Resolve(api->cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    entry_points.Resolve(api->cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    entry_points.Resolve(api->cuGetErrorString, "cuGetErrorString");
    entry_points.Resolve(api->cuGetErrorName, "cuGetErrorName");
    QDC_RETURN_IF_ERROR(entry_points.status());

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
  return gpu::CheckDevice(device, device_count_, "CUDA device", "no CUDA device");
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
  return gpu::DeviceName<CudaCalls>(*api_, device);
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

Status CudaDriver::Synchronize(int device) { return gpu::Synchronize<CudaCalls>(*this, device); }

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

void CudaModule::Reset() { gpu::UnloadModule<CudaCalls>(std::exchange(module_, nullptr), device_); }

Expected<CudaKernel> CudaModule::Kernel(std::string_view name) const {
  return gpu::FindKernel<CudaCalls, CudaKernel>(module_, device_, name);
}

Status Launch(const CudaKernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes, void** args,
              void* stream) {
  return gpu::LaunchKernel<CudaCalls>(kernel, grid, block, shared_bytes, args, stream);
}

// ---- DeviceBuffer ----

Expected<DeviceBuffer> DeviceBuffer::Allocate(std::size_t bytes, int device) {
  QDC_ASSIGN_OR_RETURN(CUdeviceptr ptr, gpu::Allocate<CudaCalls>(bytes, device));
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
  gpu::FreeMemory<CudaCalls>(std::exchange(ptr_, 0), device_);
  size_ = 0;
}

Status DeviceBuffer::CopyFromHost(const void* host, std::size_t bytes) {
  return gpu::CopyToDevice<CudaCalls>(ptr_, size_, device_, host, bytes);
}

Status DeviceBuffer::CopyToHost(void* host, std::size_t bytes) const {
  return gpu::CopyToHost<CudaCalls>(ptr_, size_, device_, host, bytes);
}

}  // namespace qdcache::client
