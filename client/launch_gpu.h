// What the CUDA and HIP launchers (launch_cuda.cc, launch_hip.cc) share.
//
// HIP's module API mirrors the CUDA driver API call for call, so what the
// two launchers do around each call is one logic over two tables of entry
// points: resolving the table when the library loads, the checks made
// before the runtime is asked, making the device current, turning a failed
// call into a Status, releasing modules and memory in destructors. That
// logic is written once here, over a launcher's traits (below). Each
// launcher keeps what really differs: finding and initializing its library,
// how a module loads (CUDA's JIT log; HIP's code-object check and the image
// kept alive), what "current" means (CUDA's primary contexts, hipSetDevice),
// and which of its error codes are which Status.
//
// Internal to the two launchers; their headers are the contract.
//
// A launcher's traits `Gpu` name:
//   Runtime    CudaDriver or HipRuntime: static Get(), MakeCurrent(device), api()
//   Api        the runtime's table of entry points, which the Entries point into
//   Error      its result code; kSuccess means success
//   Device, Module, Function, Stream, DevicePtr   its handle types
//   kName      "CUDA" or "HIP", for messages
//   ToStatus(api, error, what)   the Status of a failed call, "<what>: <error>"
//   kDeviceGet, kDeviceGetName, kSynchronize, kModuleGetFunction,
//   kModuleUnload, kLaunchKernel, kMalloc, kFree, kMemcpyHtoD, kMemcpyDtoH
//              the Entries of those calls
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "client/launch_cuda.h"  // Dim3, shared by both launchers
#include "common/expected.h"

namespace qdcache::client::gpu {

// One entry point of a runtime's table: the member that holds it, and the
// name that errors of the call quote ("cuMemcpyHtoD").
template <typename Member>
struct Entry {
  Member member;
  const char* name;
};
template <typename Member>
Entry(Member, const char*) -> Entry<Member>;

// ---- Loading a runtime ----

// Fills a table of function pointers from a loaded library (dlsym),
// remembering the first symbol the library lacks.
class EntryPoints {
 public:
  // `library` is a dlopen handle; a missing symbol reads
  // "<library_name> lacks <symbol> (<why_missing>)".
  EntryPoints(void* library, std::string library_name, std::string why_missing)
      : library_(library),
        library_name_(std::move(library_name)),
        why_missing_(std::move(why_missing)) {}

  // Sets `function` to the address of `symbol`, or to null when it is missing.
  template <typename Function>
  void Resolve(Function*& function, const char* symbol) {
    function = reinterpret_cast<Function*>(Find(symbol));
  }

  // OK when every symbol resolved so far was found; else Unavailable naming
  // the first one missing.
  [[nodiscard]] const Status& status() const { return missing_; }

 private:
  void* Find(const char* symbol);

  void* library_;
  std::string library_name_;
  std::string why_missing_;
  Status missing_;
};

// The text of a runtime's error code: its `name` ("<api> error <code>" when
// it has none), then " (<description>)" when there is a description that
// says more than the name (ROCm 5 gives the name twice).
[[nodiscard]] std::string ErrorText(std::string_view api, int error, const char* name,
                                    const char* description);

// ---- Checks made before the runtime is asked ----

// OK when `device` is one of the `count` present. Otherwise Unavailable
// `no_device` when there are none, else InvalidArgument
// "<noun> <device> does not exist (<count> present)".
[[nodiscard]] Status CheckDevice(int device, int count, std::string_view noun,
                                 std::string_view no_device);

// InvalidArgument for a null kernel ("launch of a null <api> kernel") or a
// zero grid or block dimension.
[[nodiscard]] Status CheckLaunch(std::string_view api, const void* function,
                                 const std::string& name, Dim3 grid, Dim3 block);

// Before a copy of `bytes` between the host and a device buffer of `size`
// bytes, "into" or "from" it: FailedPrecondition for a buffer moved from
// (`has_memory` false), InvalidArgument for more bytes than it has.
[[nodiscard]] Status CheckCopy(bool has_memory, std::size_t bytes, std::string_view direction,
                               std::size_t size);

// ---- The calls, with the device current ----

// Calls `entry` of `api` with `args`; a failure is Gpu::ToStatus naming it.
template <typename Gpu, typename Member, typename... Args>
[[nodiscard]] Status Call(const typename Gpu::Api& api, const Entry<Member>& entry, Args... args) {
  const typename Gpu::Error error = (api.*entry.member)(args...);
  if (error != Gpu::kSuccess) return Gpu::ToStatus(api, error, entry.name);
  return Status::Ok();
}

// The runtime, once it loaded and `device` is current on the calling thread.
template <typename Gpu>
[[nodiscard]] Expected<typename Gpu::Runtime*> CurrentOn(int device) {
  QDC_ASSIGN_OR_RETURN(auto* runtime, Gpu::Runtime::Get());
  QDC_RETURN_IF_ERROR(runtime->MakeCurrent(device));
  return runtime;
}

// The name of `device`, which the caller checked exists.
template <typename Gpu>
[[nodiscard]] Expected<std::string> DeviceName(const typename Gpu::Api& api, int device) {
  typename Gpu::Device handle = 0;
  QDC_RETURN_IF_ERROR(Call<Gpu>(api, Gpu::kDeviceGet, &handle, device));
  char name[256] = {};
  QDC_RETURN_IF_ERROR(Call<Gpu>(api, Gpu::kDeviceGetName, name, int{sizeof name - 1}, handle));
  return std::string(name);
}

// Waits for all work on `device`.
template <typename Gpu>
[[nodiscard]] Status Synchronize(typename Gpu::Runtime& runtime, int device) {
  QDC_RETURN_IF_ERROR(runtime.MakeCurrent(device));
  return Call<Gpu>(runtime.api(), Gpu::kSynchronize);
}

// The kernel `name` of a loaded module (null once moved from) on `device`.
template <typename Gpu, typename Kernel>
[[nodiscard]] Expected<Kernel> FindKernel(void* module, int device, std::string_view name) {
  if (module == nullptr)
    return FailedPrecondition(std::string(Gpu::kName) + " module was moved from");
  QDC_ASSIGN_OR_RETURN(auto* runtime, CurrentOn<Gpu>(device));
  Kernel kernel;
  kernel.name = std::string(name);
  kernel.device = device;
  typename Gpu::Function function = nullptr;
  const typename Gpu::Error error = (runtime->api().*Gpu::kModuleGetFunction.member)(
      &function, static_cast<typename Gpu::Module>(module), kernel.name.c_str());
  if (error != Gpu::kSuccess) {
    return Gpu::ToStatus(runtime->api(), error, "kernel '" + kernel.name + "'");
  }
  kernel.function = function;
  return kernel;
}

// Enqueues `kernel` on `stream` (null: the default stream) of its device.
template <typename Gpu, typename Kernel>
[[nodiscard]] Status LaunchKernel(const Kernel& kernel, Dim3 grid, Dim3 block,
                                  unsigned shared_bytes, void** args, void* stream) {
  QDC_RETURN_IF_ERROR(CheckLaunch(Gpu::kName, kernel.function, kernel.name, grid, block));
  QDC_ASSIGN_OR_RETURN(auto* runtime, CurrentOn<Gpu>(kernel.device));
  const typename Gpu::Error error = (runtime->api().*Gpu::kLaunchKernel.member)(
      static_cast<typename Gpu::Function>(kernel.function), grid.x, grid.y, grid.z, block.x,
      block.y, block.z, shared_bytes, static_cast<typename Gpu::Stream>(stream), args, nullptr);
  if (error != Gpu::kSuccess) {
    return Gpu::ToStatus(runtime->api(), error, "launching '" + kernel.name + "'");
  }
  return Status::Ok();
}

// `bytes` (more than 0) of memory on `device`. Without a runtime this is
// Unavailable whatever the size.
template <typename Gpu>
[[nodiscard]] Expected<typename Gpu::DevicePtr> Allocate(std::size_t bytes, int device) {
  QDC_RETURN_IF_ERROR(Gpu::Runtime::Get().status());
  if (bytes == 0) return InvalidArgument("device buffer of 0 bytes");
  QDC_ASSIGN_OR_RETURN(auto* runtime, CurrentOn<Gpu>(device));
  typename Gpu::DevicePtr memory{};
  const typename Gpu::Error error = (runtime->api().*Gpu::kMalloc.member)(&memory, bytes);
  if (error != Gpu::kSuccess) {
    return Gpu::ToStatus(runtime->api(), error,
                         std::string(Gpu::kMalloc.name) + "(" + std::to_string(bytes) + " bytes)");
  }
  return memory;
}

// Copies `bytes` from `host` to the start of the `size` bytes at `memory`
// (null once moved from) on `device`.
template <typename Gpu>
[[nodiscard]] Status CopyToDevice(typename Gpu::DevicePtr memory, std::size_t size, int device,
                                  const void* host, std::size_t bytes) {
  QDC_RETURN_IF_ERROR(CheckCopy(memory != typename Gpu::DevicePtr{}, bytes, "into", size));
  QDC_ASSIGN_OR_RETURN(auto* runtime, CurrentOn<Gpu>(device));
  // hipMemcpyHtoD takes a non-const source but only reads it.
  return Call<Gpu>(runtime->api(), Gpu::kMemcpyHtoD, memory, const_cast<void*>(host), bytes);
}

// Copies the first `bytes` of the `size` at `memory` on `device` to `host`.
template <typename Gpu>
[[nodiscard]] Status CopyToHost(typename Gpu::DevicePtr memory, std::size_t size, int device,
                                void* host, std::size_t bytes) {
  QDC_RETURN_IF_ERROR(CheckCopy(memory != typename Gpu::DevicePtr{}, bytes, "from", size));
  QDC_ASSIGN_OR_RETURN(auto* runtime, CurrentOn<Gpu>(device));
  return Call<Gpu>(runtime->api(), Gpu::kMemcpyDtoH, host, memory, bytes);
}

// ---- Releasing, in destructors ----

// Calls `entry` on `handle` with `device` current. Errors are dropped: a
// destructor has no one to tell, and a runtime that never loaded holds
// nothing to release.
template <typename Gpu, typename Member, typename Handle>
void ReleaseOn(int device, const Entry<Member>& entry, Handle handle) {
  auto runtime = Gpu::Runtime::Get();
  if (runtime.ok() && (*runtime)->MakeCurrent(device).ok()) {
    (void)((*runtime)->api().*entry.member)(handle);
  }
}

// Unloads a module (null: none) of `device`.
template <typename Gpu>
void UnloadModule(void* module, int device) {
  if (module != nullptr) {
    ReleaseOn<Gpu>(device, Gpu::kModuleUnload, static_cast<typename Gpu::Module>(module));
  }
}

// Frees memory (null: none) of `device`.
template <typename Gpu>
void FreeMemory(typename Gpu::DevicePtr memory, int device) {
  if (memory != typename Gpu::DevicePtr{}) ReleaseOn<Gpu>(device, Gpu::kFree, memory);
}

}  // namespace qdcache::client::gpu
