#include "client/launch_hip.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "client/launch_gpu.h"

namespace qdcache::client {

// The few runtime API types and values used here, declared by hand (ABI of
// hip_runtime_api.h, unchanged from ROCm 5 to 6) so that building needs no
// HIP headers and running needs no ROCm.
namespace hip_abi {
using hipError_t = int;
using hipDevice_t = int;
using hipDeviceptr_t = void*;
struct ihipModule_t;
struct ihipModuleSymbol_t;
struct ihipStream_t;
using hipModule_t = ihipModule_t*;
using hipFunction_t = ihipModuleSymbol_t*;
using hipStream_t = ihipStream_t*;

constexpr hipError_t kSuccess = 0;
constexpr hipError_t kErrorInvalidValue = 1;
constexpr hipError_t kErrorOutOfMemory = 2;
constexpr hipError_t kErrorInvalidConfiguration = 9;
constexpr hipError_t kErrorInvalidDeviceFunction = 98;
constexpr hipError_t kErrorNoDevice = 100;
constexpr hipError_t kErrorInvalidDevice = 101;
constexpr hipError_t kErrorInvalidImage = 200;
constexpr hipError_t kErrorNoBinaryForGpu = 209;
constexpr hipError_t kErrorInvalidKernelFile = 218;
constexpr hipError_t kErrorSharedObjectInitFailed = 303;
constexpr hipError_t kErrorNotFound = 500;
constexpr hipError_t kErrorLaunchOutOfResources = 701;
}  // namespace hip_abi

using namespace hip_abi;  // NOLINT: this file speaks the runtime's ABI

struct HipRuntimeApi {
  hipError_t (*hipInit)(unsigned);
  hipError_t (*hipRuntimeGetVersion)(int*);
  hipError_t (*hipGetDeviceCount)(int*);
  hipError_t (*hipDeviceGet)(hipDevice_t*, int);
  hipError_t (*hipDeviceGetName)(char*, int, hipDevice_t);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipDeviceSynchronize)();
  hipError_t (*hipModuleLoadData)(hipModule_t*, const void*);
  hipError_t (*hipModuleUnload)(hipModule_t);
  hipError_t (*hipModuleGetFunction)(hipFunction_t*, hipModule_t, const char*);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, hipStream_t, void**, void**);
  hipError_t (*hipMalloc)(void**, std::size_t);
  hipError_t (*hipFree)(void*);
  hipError_t (*hipMemcpyHtoD)(hipDeviceptr_t, void*, std::size_t);
  hipError_t (*hipMemcpyDtoH)(void*, hipDeviceptr_t, std::size_t);
  const char* (*hipGetErrorName)(hipError_t);
  const char* (*hipGetErrorString)(hipError_t);
};

namespace {

constexpr const char* kLibraryVariable = "QDCACHE_HIP_LIBRARY";
constexpr const char* kDefaultLibraries[] = {"libamdhip64.so", "libamdhip64.so.6",
                                             "libamdhip64.so.5"};

// "hipErrorNoDevice", plus the description when the runtime has a
// different one (ROCm 5 gives the name twice).
std::string ErrorText(const HipRuntimeApi& api, hipError_t r) {
  const char* name = api.hipGetErrorName(r);
  return gpu::ErrorText("HIP", r, name, api.hipGetErrorString(r));
}

Status HipStatus(const HipRuntimeApi& api, hipError_t r, std::string_view what) {
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
    case kErrorInvalidConfiguration:
    case kErrorInvalidDeviceFunction:
    case kErrorInvalidDevice:
    case kErrorInvalidImage:
    case kErrorNoBinaryForGpu:
    case kErrorInvalidKernelFile:
    case kErrorSharedObjectInitFailed:
      return InvalidArgument(std::move(message));
    default:
      return Internal(std::move(message));
  }
}

// The runtime as the code it shares with CUDA (launch_gpu.h) calls it.
struct HipCalls {
  using Runtime = HipRuntime;
  using Api = HipRuntimeApi;
  using Error = hipError_t;
  using Device = hipDevice_t;
  using Module = hipModule_t;
  using Function = hipFunction_t;
  using Stream = hipStream_t;
  using DevicePtr = hipDeviceptr_t;
  static constexpr const char* kName = "HIP";
  static constexpr Error kSuccess = hip_abi::kSuccess;
  static Status ToStatus(const Api& api, Error r, std::string_view what) {
    return HipStatus(api, r, what);
  }
  static constexpr gpu::Entry kDeviceGet{&Api::hipDeviceGet, "hipDeviceGet"};
  static constexpr gpu::Entry kDeviceGetName{&Api::hipDeviceGetName, "hipDeviceGetName"};
  static constexpr gpu::Entry kSynchronize{&Api::hipDeviceSynchronize, "hipDeviceSynchronize"};
  static constexpr gpu::Entry kModuleGetFunction{&Api::hipModuleGetFunction,
                                                 "hipModuleGetFunction"};
  static constexpr gpu::Entry kModuleUnload{&Api::hipModuleUnload, "hipModuleUnload"};
  static constexpr gpu::Entry kLaunchKernel{&Api::hipModuleLaunchKernel, "hipModuleLaunchKernel"};
  static constexpr gpu::Entry kMalloc{&Api::hipMalloc, "hipMalloc"};
  static constexpr gpu::Entry kFree{&Api::hipFree, "hipFree"};
  static constexpr gpu::Entry kMemcpyHtoD{&Api::hipMemcpyHtoD, "hipMemcpyHtoD"};
  static constexpr gpu::Entry kMemcpyDtoH{&Api::hipMemcpyDtoH, "hipMemcpyDtoH"};
};

// "a, b or c"
std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

// The 16-bit field at `offset` of an ELF header, little-endian as every
// AMDGPU ELF is (the caller checked the header's length).
std::uint16_t ElfHalf(std::string_view header, std::size_t offset) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(header[offset]) |
                                    static_cast<unsigned char>(header[offset + 1]) << 8);
}

// $QDCACHE_HIP_LIBRARY, or null when unset or empty.
const char* LibraryFromEnvironment() {
  const char* path = std::getenv(kLibraryVariable);
  return path != nullptr && path[0] != '\0' ? path : nullptr;
}

}  // namespace

std::vector<std::string> HipLibraryCandidates() {
  if (const char* path = LibraryFromEnvironment()) return {path};
  return {std::begin(kDefaultLibraries), std::end(kDefaultLibraries)};
}

struct HipRuntimeLoader {
  static Expected<HipRuntime*> Load() {
    const std::vector<std::string> candidates = HipLibraryCandidates();
    void* lib = nullptr;
    std::string library;
    std::string errors;
    for (const std::string& candidate : candidates) {
      lib = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib != nullptr) {
        library = candidate;
        break;
      }
      const char* e = ::dlerror();
      if (!errors.empty()) errors += "; ";
      errors += e != nullptr ? e : candidate + ": dlopen failed";
    }
    if (lib == nullptr) {
      const bool from_env = LibraryFromEnvironment() != nullptr;
      return Unavailable(JoinNames(candidates) + " not found (no HIP runtime" +
                         (from_env ? std::string(", from $") + kLibraryVariable : "") +
                         "): " + errors);
    }
    // Never dlclosed, whether or not the runtime initializes (its answer is
    // the process's answer; the first candidate that loads is the runtime);
    // the table is freed when loading fails.
    auto api = std::make_unique<HipRuntimeApi>();
    gpu::EntryPoints entry_points(lib, library, "not a HIP runtime, or too old?");
    entry_points.Resolve(api->hipInit, "hipInit");
    entry_points.Resolve(api->hipRuntimeGetVersion, "hipRuntimeGetVersion");
    entry_points.Resolve(api->hipGetDeviceCount, "hipGetDeviceCount");
    entry_points.Resolve(api->hipDeviceGet, "hipDeviceGet");
    entry_points.Resolve(api->hipDeviceGetName, "hipDeviceGetName");
    entry_points.Resolve(api->hipSetDevice, "hipSetDevice");
    entry_points.Resolve(api->hipDeviceSynchronize, "hipDeviceSynchronize");
    entry_points.Resolve(api->hipModuleLoadData, "hipModuleLoadData");
    entry_points.Resolve(api->hipModuleUnload, "hipModuleUnload");
    entry_points.Resolve(api->hipModuleGetFunction, "hipModuleGetFunction");
    entry_points.Resolve(api->hipModuleLaunchKernel, "hipModuleLaunchKernel");
    entry_points.Resolve(api->hipMalloc, "hipMalloc");
    entry_points.Resolve(api->hipFree, "hipFree");
    entry_points.Resolve(api->hipMemcpyHtoD, "hipMemcpyHtoD");
    entry_points.Resolve(api->hipMemcpyDtoH, "hipMemcpyDtoH");
    entry_points.Resolve(api->hipGetErrorName, "hipGetErrorName");
    entry_points.Resolve(api->hipGetErrorString, "hipGetErrorString");
    QDC_RETURN_IF_ERROR(entry_points.status());

    // Without a GPU (no /dev/kfd), ROCm 5.2's hipInit returns
    // hipErrorInvalidDevice at once and quietly; hipErrorNoDevice is what
    // the API documents for the same case.
    hipError_t r = api->hipInit(0);
    if (r == kErrorNoDevice || r == kErrorInvalidDevice)
      return Unavailable("no AMD GPU (hipInit: " + ErrorText(*api, r) + ")");
    if (r != kSuccess)
      return Unavailable("HIP runtime failed to initialize: hipInit: " + ErrorText(*api, r));

    auto* runtime = new HipRuntime();
    runtime->library_ = library;
    (void)api->hipRuntimeGetVersion(&runtime->runtime_version_);
    r = api->hipGetDeviceCount(&runtime->device_count_);
    if (r != kSuccess || runtime->device_count_ <= 0) {
      runtime->device_count_ = 0;
      runtime->no_device_ = "no AMD GPU (hipGetDeviceCount: " +
                            (r != kSuccess ? ErrorText(*api, r) : std::string("0 devices")) + ")";
    }
    runtime->api_ = api.release();
    return runtime;
  }
};

Expected<HipRuntime*> HipRuntime::Get() {
  static const Expected<HipRuntime*> runtime = HipRuntimeLoader::Load();
  return runtime;
}

Status HipAvailable() {
  QDC_ASSIGN_OR_RETURN(HipRuntime * runtime, HipRuntime::Get());
  return runtime->CheckDevice(0);
}

Status CheckHsaCodeObject(std::string_view image) {
  constexpr std::size_t kElf64HeaderBytes = 64;
  constexpr unsigned char kElfClass64 = 2;
  constexpr unsigned char kOsAbiAmdgpuHsa = 64;
  constexpr std::uint16_t kMachineAmdgpu = 224;
  constexpr std::uint16_t kMachineCuda = 190;
  constexpr std::uint16_t kTypeShared = 3;  // ET_DYN
  constexpr char kElfMagic[4] = {'\x7f', 'E', 'L', 'F'};
  if (image.size() < 4 || std::memcmp(image.data(), kElfMagic, 4) != 0) {
    return InvalidArgument("not an HSA code object: no ELF header (" +
                           std::to_string(image.size()) + " bytes)");
  }
  if (image.size() < kElf64HeaderBytes || static_cast<unsigned char>(image[4]) != kElfClass64) {
    return InvalidArgument("not an HSA code object: not a 64-bit ELF");
  }
  const std::uint16_t machine = ElfHalf(image, 18);  // e_machine
  if (machine == kMachineCuda) return InvalidArgument("not an HSA code object: a cubin");
  if (machine != kMachineAmdgpu) {
    return InvalidArgument("not an HSA code object: an ELF for machine " + std::to_string(machine) +
                           ", not AMDGPU (224)");
  }
  // e_type: the runtime loads shared objects only, not relocatable objects.
  const std::uint16_t type = ElfHalf(image, 16);
  if (type != kTypeShared) {
    return InvalidArgument("not an HSA code object: an AMDGPU ELF of type " + std::to_string(type) +
                           ", not a shared object (3)");
  }
  const auto os_abi = static_cast<unsigned char>(image[7]);
  if (os_abi != kOsAbiAmdgpuHsa) {
    return InvalidArgument("not an HSA code object: an AMDGPU ELF for OS ABI " +
                           std::to_string(os_abi) + ", not AMDHSA (64)");
  }
  return Status::Ok();
}

Status HipRuntime::CheckDevice(int device) const {
  return gpu::CheckDevice(device, device_count_, "AMD GPU", no_device_);
}

Expected<std::string> HipRuntime::DeviceName(int device) const {
  QDC_RETURN_IF_ERROR(CheckDevice(device));
  return gpu::DeviceName<HipCalls>(*api_, device);
}

Status HipRuntime::MakeCurrent(int device) {
  QDC_RETURN_IF_ERROR(CheckDevice(device));
  hipError_t r = api_->hipSetDevice(device);
  if (r != kSuccess) return HipStatus(*api_, r, "hipSetDevice");
  return Status::Ok();
}

Status HipRuntime::Synchronize(int device) { return gpu::Synchronize<HipCalls>(*this, device); }

// ---- HipModule ----

Expected<HipModule> HipModule::Load(std::string_view image, int device) {
  QDC_ASSIGN_OR_RETURN(HipRuntime * runtime, HipRuntime::Get());
  if (image.empty()) return InvalidArgument("HIP module image is empty");
  QDC_RETURN_IF_ERROR(CheckHsaCodeObject(image));
  QDC_RETURN_IF_ERROR(runtime->MakeCurrent(device));
  auto owned = std::make_unique<const std::string>(image);
  hipModule_t module = nullptr;
  hipError_t r = runtime->api().hipModuleLoadData(&module, owned->data());
  if (r != kSuccess) return HipStatus(runtime->api(), r, "hipModuleLoadData");
  return HipModule(module, device, std::move(owned));
}

HipModule::HipModule(HipModule&& other) noexcept
    : module_(std::exchange(other.module_, nullptr)),
      device_(other.device_),
      image_(std::move(other.image_)) {}

HipModule& HipModule::operator=(HipModule&& other) noexcept {
  if (this != &other) {
    Reset();
    module_ = std::exchange(other.module_, nullptr);
    device_ = other.device_;
    image_ = std::move(other.image_);
  }
  return *this;
}

HipModule::~HipModule() { Reset(); }

void HipModule::Reset() {
  gpu::UnloadModule<HipCalls>(std::exchange(module_, nullptr), device_);
  image_.reset();  // only once the runtime is done with it
}

Expected<HipKernel> HipModule::Kernel(std::string_view name) const {
  return gpu::FindKernel<HipCalls, HipKernel>(module_, device_, name);
}

Status Launch(const HipKernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes, void** args,
              void* stream) {
  return gpu::LaunchKernel<HipCalls>(kernel, grid, block, shared_bytes, args, stream);
}

// ---- HipDeviceBuffer ----

Expected<HipDeviceBuffer> HipDeviceBuffer::Allocate(std::size_t bytes, int device) {
  QDC_ASSIGN_OR_RETURN(void* ptr, gpu::Allocate<HipCalls>(bytes, device));
  return HipDeviceBuffer(ptr, bytes, device);
}

HipDeviceBuffer::HipDeviceBuffer(HipDeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      device_(other.device_) {}

HipDeviceBuffer& HipDeviceBuffer::operator=(HipDeviceBuffer&& other) noexcept {
  if (this != &other) {
    Reset();
    ptr_ = std::exchange(other.ptr_, nullptr);
    size_ = std::exchange(other.size_, 0);
    device_ = other.device_;
  }
  return *this;
}

HipDeviceBuffer::~HipDeviceBuffer() { Reset(); }

void HipDeviceBuffer::Reset() {
  gpu::FreeMemory<HipCalls>(std::exchange(ptr_, nullptr), device_);
  size_ = 0;
}

Status HipDeviceBuffer::CopyFromHost(const void* host, std::size_t bytes) {
  return gpu::CopyToDevice<HipCalls>(ptr_, size_, device_, host, bytes);
}

Status HipDeviceBuffer::CopyToHost(void* host, std::size_t bytes) const {
  return gpu::CopyToHost<HipCalls>(ptr_, size_, device_, host, bytes);
}

}  // namespace qdcache::client
