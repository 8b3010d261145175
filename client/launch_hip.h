// Loading and launching AMDGPU artifacts (HSA code objects) through the HIP
// module API, with the HIP runtime opened at run time: the client library
// has no link-time dependency on ROCm, and a machine without it gets clear
// errors instead of a failure to start.
//
// The runtime: $QDCACHE_HIP_LIBRARY (a path) when set, as the only one tried;
// else the first of libamdhip64.so, libamdhip64.so.6, libamdhip64.so.5 that
// loads. The variable is read once, at the first call of HipRuntime::Get().
//
// Devices: every call makes its device current on the calling thread first
// (hipSetDevice), so any thread may use any module or buffer.
//
// Errors: a missing runtime or GPU is Unavailable ("libamdhip64.so, ... not
// found (no HIP runtime): ...", "no AMD GPU (hipInit: hipErrorInvalidDevice)");
// an image that is not an HSA code object, or that the runtime refuses, is
// InvalidArgument; an out-of-memory is ResourceExhausted; a missing kernel
// is NotFound. HIP error names are in the message. No HIP types appear here,
// so this header can sit next to hip_runtime_api.h.
//
// Thread-safety: HipRuntime is safe to use from any thread. Modules and
// buffers may be used from any thread but not destroyed while in use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client/launch_cuda.h"  // Dim3, shared by both launchers
#include "common/expected.h"

namespace qdcache::client {

struct HipRuntimeApi;  // function pointers resolved from libamdhip64

// The libraries HipRuntime::Get() tries, in order: $QDCACHE_HIP_LIBRARY
// alone when it is set and not empty, else the three default names.
[[nodiscard]] std::vector<std::string> HipLibraryCandidates();

// The process-wide, lazily initialized HIP runtime.
class HipRuntime {
 public:
  // Loads the runtime (HipLibraryCandidates()), resolves the entry points
  // and calls hipInit(0) once; later calls return the same result. Never
  // null when OK. A runtime whose hipInit says there is no device is
  // Unavailable "no AMD GPU (hipInit: ...)".
  [[nodiscard]] static Expected<HipRuntime*> Get();

  [[nodiscard]] int device_count() const { return device_count_; }
  [[nodiscard]] int runtime_version() const { return runtime_version_; }  // e.g. 50221153
  [[nodiscard]] const std::string& library() const { return library_; }   // the one loaded
  [[nodiscard]] Expected<std::string> DeviceName(int device) const;
  // OK when `device` exists; Unavailable "no AMD GPU (...)" when none does,
  // InvalidArgument for an index past the last.
  [[nodiscard]] Status CheckDevice(int device) const;

  // Makes the device current on the calling thread.
  [[nodiscard]] Status MakeCurrent(int device);
  // Waits for all work on the device.
  [[nodiscard]] Status Synchronize(int device);

  [[nodiscard]] const HipRuntimeApi& api() const { return *api_; }

  HipRuntime(const HipRuntime&) = delete;
  HipRuntime& operator=(const HipRuntime&) = delete;

 private:
  friend struct HipRuntimeLoader;
  HipRuntime() = default;

  const HipRuntimeApi* api_ = nullptr;
  int device_count_ = 0;
  int runtime_version_ = 0;
  std::string library_;
  std::string no_device_;  // why device_count_ is 0: "no AMD GPU (...)"
};

// OK when the runtime loads and at least one device exists; otherwise why
// not ("... not found (no HIP runtime): ...", "no AMD GPU (...)"). For tests
// and `doctor`.
[[nodiscard]] Status HipAvailable();

// OK when `image` is an HSA code object: a 64-bit ELF shared object for
// EM_AMDGPU with the AMDHSA OS ABI (what the daemon's amdgpu targets yield). InvalidArgument
// saying what it is otherwise ("a cubin", "an ELF for machine 62"). Needs no
// runtime; HipModule::Load checks it before handing the image over.
[[nodiscard]] Status CheckHsaCodeObject(std::string_view image);

// A kernel handle inside a HipModule; valid while the module lives.
struct HipKernel {
  void* function = nullptr;  // hipFunction_t
  int device = 0;
  std::string name;
};

class HipModule {
 public:
  // `image` is an HSA code object (CheckHsaCodeObject); it is copied, and the
  // copy lives as long as the module (the runtime may refer to it).
  [[nodiscard]] static Expected<HipModule> Load(std::string_view image, int device = 0);

  HipModule(HipModule&& other) noexcept;
  HipModule& operator=(HipModule&& other) noexcept;
  HipModule(const HipModule&) = delete;
  HipModule& operator=(const HipModule&) = delete;
  ~HipModule();

  [[nodiscard]] Expected<HipKernel> Kernel(std::string_view name) const;
  [[nodiscard]] int device() const { return device_; }

 private:
  HipModule(void* module, int device, std::unique_ptr<const std::string> image)
      : module_(module), device_(device), image_(std::move(image)) {}
  void Reset();

  void* module_ = nullptr;  // hipModule_t
  int device_ = 0;
  std::unique_ptr<const std::string> image_;
};

// Enqueues the kernel on the null stream (or `stream`, a hipStream_t) of its
// device. `args` holds one pointer per kernel parameter, as
// hipModuleLaunchKernel's kernelParams expects. Launches are asynchronous:
// errors inside the kernel surface at the next HipRuntime::Synchronize.
[[nodiscard]] Status Launch(const HipKernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes,
                            void** args, void* stream = nullptr);

// Device memory owned by RAII: freed on destruction. Movable, not copyable.
class HipDeviceBuffer {
 public:
  [[nodiscard]] static Expected<HipDeviceBuffer> Allocate(std::size_t bytes, int device = 0);

  HipDeviceBuffer(HipDeviceBuffer&& other) noexcept;
  HipDeviceBuffer& operator=(HipDeviceBuffer&& other) noexcept;
  HipDeviceBuffer(const HipDeviceBuffer&) = delete;
  HipDeviceBuffer& operator=(const HipDeviceBuffer&) = delete;
  ~HipDeviceBuffer();

  // Synchronous copies of `bytes` (at most size()) to / from the buffer start.
  [[nodiscard]] Status CopyFromHost(const void* host, std::size_t bytes);
  [[nodiscard]] Status CopyToHost(void* host, std::size_t bytes) const;

  [[nodiscard]] std::uint64_t device_ptr() const {  // hipDeviceptr_t
    return reinterpret_cast<std::uintptr_t>(ptr_);
  }
  // The address of the device pointer, for a kernel's args array.
  [[nodiscard]] void* arg() { return &ptr_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] int device() const { return device_; }

 private:
  HipDeviceBuffer(void* ptr, std::size_t size, int device)
      : ptr_(ptr), size_(size), device_(device) {}
  void Reset();

  void* ptr_ = nullptr;
  std::size_t size_ = 0;
  int device_ = 0;
};

}  // namespace qdcache::client
