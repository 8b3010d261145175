#include "client/launch_hip.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

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
  const char* text = api.hipGetErrorString(r);
  std::string out = name != nullptr ? name : "HIP error " + std::to_string(r);
  if (text != nullptr && out != text) out += std::string(" (") + text + ")";
  return out;
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
    // Kept only once the runtime initializes; then never dlclosed and never
    // freed: the runtime stays for the process.
    auto api = std::make_unique<HipRuntimeApi>();
    Status missing;
    auto resolve = [&](auto& fn, const char* symbol) {
      void* address = ::dlsym(lib, symbol);
      if (address == nullptr && missing.ok()) {
        missing = Unavailable(library + " lacks " + symbol + " (not a HIP runtime, or too old?)");
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(address);
    };
    resolve(api->hipInit, "hipInit");
    resolve(api->hipRuntimeGetVersion, "hipRuntimeGetVersion");
    resolve(api->hipGetDeviceCount, "hipGetDeviceCount");
    resolve(api->hipDeviceGet, "hipDeviceGet");
    resolve(api->hipDeviceGetName, "hipDeviceGetName");
    resolve(api->hipSetDevice, "hipSetDevice");
    resolve(api->hipDeviceSynchronize, "hipDeviceSynchronize");
    resolve(api->hipModuleLoadData, "hipModuleLoadData");
    resolve(api->hipModuleUnload, "hipModuleUnload");
    resolve(api->hipModuleGetFunction, "hipModuleGetFunction");
    resolve(api->hipModuleLaunchKernel, "hipModuleLaunchKernel");
    resolve(api->hipMalloc, "hipMalloc");
    resolve(api->hipFree, "hipFree");
    resolve(api->hipMemcpyHtoD, "hipMemcpyHtoD");
    resolve(api->hipMemcpyDtoH, "hipMemcpyDtoH");
    resolve(api->hipGetErrorName, "hipGetErrorName");
    resolve(api->hipGetErrorString, "hipGetErrorString");
    if (!missing.ok()) return missing;

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
  if (device_count_ == 0) return Unavailable(no_device_);
  if (device < 0 || device >= device_count_) {
    return InvalidArgument("AMD GPU " + std::to_string(device) + " does not exist (" +
                           std::to_string(device_count_) + " present)");
  }
  return Status::Ok();
}

Expected<std::string> HipRuntime::DeviceName(int device) const {
  QDC_RETURN_IF_ERROR(CheckDevice(device));
  hipDevice_t dev = 0;
  hipError_t r = api_->hipDeviceGet(&dev, device);
  if (r != kSuccess) return HipStatus(*api_, r, "hipDeviceGet");
  char name[256] = {};
  r = api_->hipDeviceGetName(name, sizeof name - 1, dev);
  if (r != kSuccess) return HipStatus(*api_, r, "hipDeviceGetName");
  return std::string(name);
}

Status HipRuntime::MakeCurrent(int device) {
  QDC_RETURN_IF_ERROR(CheckDevice(device));
  hipError_t r = api_->hipSetDevice(device);
  if (r != kSuccess) return HipStatus(*api_, r, "hipSetDevice");
  return Status::Ok();
}

Status HipRuntime::Synchronize(int device) {
  QDC_RETURN_IF_ERROR(MakeCurrent(device));
  hipError_t r = api_->hipDeviceSynchronize();
  if (r != kSuccess) return HipStatus(*api_, r, "hipDeviceSynchronize");
  return Status::Ok();
}

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
  if (module_ != nullptr) {
    auto runtime = HipRuntime::Get();
    if (runtime.ok() && (*runtime)->MakeCurrent(device_).ok()) {
      (void)(*runtime)->api().hipModuleUnload(static_cast<hipModule_t>(module_));
    }
    module_ = nullptr;
  }
  image_.reset();  // only once the runtime is done with it
}

Expected<HipKernel> HipModule::Kernel(std::string_view name) const {
  if (module_ == nullptr) return FailedPrecondition("HIP module was moved from");
  QDC_ASSIGN_OR_RETURN(HipRuntime * runtime, HipRuntime::Get());
  QDC_RETURN_IF_ERROR(runtime->MakeCurrent(device_));
  HipKernel kernel;
  kernel.name = std::string(name);
  kernel.device = device_;
  hipFunction_t function = nullptr;
  hipError_t r = runtime->api().hipModuleGetFunction(&function, static_cast<hipModule_t>(module_),
                                                     kernel.name.c_str());
  if (r != kSuccess) return HipStatus(runtime->api(), r, "kernel '" + kernel.name + "'");
  kernel.function = function;
  return kernel;
}

Status Launch(const HipKernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes, void** args,
              void* stream) {
  if (kernel.function == nullptr) return InvalidArgument("launch of a null HIP kernel");
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0) {
    return InvalidArgument("launch of '" + kernel.name + "' with a zero grid or block dimension");
  }
  QDC_ASSIGN_OR_RETURN(HipRuntime * runtime, HipRuntime::Get());
  QDC_RETURN_IF_ERROR(runtime->MakeCurrent(kernel.device));
  hipError_t r = runtime->api().hipModuleLaunchKernel(
      static_cast<hipFunction_t>(kernel.function), grid.x, grid.y, grid.z, block.x, block.y,
      block.z, shared_bytes, static_cast<hipStream_t>(stream), args, nullptr);
  if (r != kSuccess) return HipStatus(runtime->api(), r, "launching '" + kernel.name + "'");
  return Status::Ok();
}

// ---- HipDeviceBuffer ----

Expected<HipDeviceBuffer> HipDeviceBuffer::Allocate(std::size_t bytes, int device) {
  QDC_ASSIGN_OR_RETURN(HipRuntime * runtime, HipRuntime::Get());
  if (bytes == 0) return InvalidArgument("device buffer of 0 bytes");
  QDC_RETURN_IF_ERROR(runtime->MakeCurrent(device));
  void* ptr = nullptr;
  hipError_t r = runtime->api().hipMalloc(&ptr, bytes);
  if (r != kSuccess) {
    return HipStatus(runtime->api(), r, "hipMalloc(" + std::to_string(bytes) + " bytes)");
  }
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
  if (ptr_ == nullptr) return;
  auto runtime = HipRuntime::Get();
  if (runtime.ok() && (*runtime)->MakeCurrent(device_).ok()) {
    (void)(*runtime)->api().hipFree(ptr_);
  }
  ptr_ = nullptr;
  size_ = 0;
}

Status HipDeviceBuffer::CopyFromHost(const void* host, std::size_t bytes) {
  if (ptr_ == nullptr) return FailedPrecondition("device buffer was moved from");
  if (bytes > size_) {
    return InvalidArgument("copy of " + std::to_string(bytes) + " bytes into a device buffer of " +
                           std::to_string(size_));
  }
  QDC_ASSIGN_OR_RETURN(HipRuntime * runtime, HipRuntime::Get());
  QDC_RETURN_IF_ERROR(runtime->MakeCurrent(device_));
  // hipMemcpyHtoD takes a non-const source but only reads it.
  hipError_t r = runtime->api().hipMemcpyHtoD(ptr_, const_cast<void*>(host), bytes);
  if (r != kSuccess) return HipStatus(runtime->api(), r, "hipMemcpyHtoD");
  return Status::Ok();
}

Status HipDeviceBuffer::CopyToHost(void* host, std::size_t bytes) const {
  if (ptr_ == nullptr) return FailedPrecondition("device buffer was moved from");
  if (bytes > size_) {
    return InvalidArgument("copy of " + std::to_string(bytes) + " bytes from a device buffer of " +
                           std::to_string(size_));
  }
  QDC_ASSIGN_OR_RETURN(HipRuntime * runtime, HipRuntime::Get());
  QDC_RETURN_IF_ERROR(runtime->MakeCurrent(device_));
  hipError_t r = runtime->api().hipMemcpyDtoH(host, ptr_, bytes);
  if (r != kSuccess) return HipStatus(runtime->api(), r, "hipMemcpyDtoH");
  return Status::Ok();
}

}  // namespace qdcache::client
