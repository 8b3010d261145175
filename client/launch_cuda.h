// Loading and launching CUDA artifacts (cubins, or PTX for the driver's JIT)
// through the CUDA driver API, with libcuda.so.1 opened at run time: the
// client library has no link-time dependency on the driver, and a machine
// without one gets clear errors instead of a failure to start.
//
// Contexts: every call makes the device's primary context current on the
// calling thread first, so any thread may use any module or buffer. Primary
// contexts are retained once per device and kept for the life of the process.
//
// Errors: a missing driver or device is Unavailable ("libcuda.so.1 not
// found: ...", "no CUDA device"); a bad image is InvalidArgument with the
// driver's JIT log when it gives one; an out-of-memory is ResourceExhausted;
// a missing kernel is NotFound. Driver error names and strings are in the
// message. No CUDA types appear here, so this header can sit next to cuda.h.
//
// Thread-safety: CudaDriver is safe to use from any thread. Modules and
// buffers may be used from any thread but not destroyed while in use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/expected.h"

namespace qdcache::client {

struct CudaDriverApi;  // function pointers resolved from libcuda.so.1

// The process-wide, lazily initialized driver.
class CudaDriver {
 public:
  // Loads libcuda.so.1, resolves the entry points and calls cuInit(0) once;
  // later calls return the same result. Never null when OK.
  [[nodiscard]] static Expected<CudaDriver*> Get();

  [[nodiscard]] int device_count() const { return device_count_; }
  [[nodiscard]] int driver_version() const { return driver_version_; }  // e.g. 12040
  // Compute capability as major*10+minor (90 for sm_90).
  [[nodiscard]] Expected<int> ComputeCapability(int device) const;
  [[nodiscard]] Expected<std::string> DeviceName(int device) const;

  // Makes the device's primary context current on the calling thread.
  [[nodiscard]] Status MakeCurrent(int device);
  // Waits for all work on the device's primary context.
  [[nodiscard]] Status Synchronize(int device);

  [[nodiscard]] const CudaDriverApi& api() const { return *api_; }

  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;

 private:
  friend struct CudaDriverLoader;
  CudaDriver() = default;
  [[nodiscard]] Status CheckDevice(int device) const;

  const CudaDriverApi* api_ = nullptr;
  int device_count_ = 0;
  int driver_version_ = 0;
  struct Contexts;
  Contexts* contexts_ = nullptr;  // lives as long as the process
};

// OK when the driver loads and at least one device exists; otherwise why not
// ("libcuda.so.1 not found: ...", "no CUDA device"). For tests and `doctor`.
[[nodiscard]] Status CudaAvailable();

// A kernel handle inside a CudaModule; valid while the module lives.
struct CudaKernel {
  void* function = nullptr;  // CUfunction
  int device = 0;
  std::string name;
};

class CudaModule {
 public:
  // `image` is a cubin (ELF) or NUL-free PTX text; it is copied, so it need
  // not outlive the call.
  [[nodiscard]] static Expected<CudaModule> Load(std::string_view image, int device = 0);

  CudaModule(CudaModule&& other) noexcept;
  CudaModule& operator=(CudaModule&& other) noexcept;
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;
  ~CudaModule();

  [[nodiscard]] Expected<CudaKernel> Kernel(std::string_view name) const;
  [[nodiscard]] int device() const { return device_; }

 private:
  CudaModule(void* module, int device) : module_(module), device_(device) {}
  void Reset();

  void* module_ = nullptr;  // CUmodule
  int device_ = 0;
};

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// Enqueues the kernel on the default stream (or `stream`, a CUstream) of its
// device. `args` holds one pointer per kernel parameter, as cuLaunchKernel
// expects. Launches are asynchronous: errors inside the kernel surface at
// the next CudaDriver::Synchronize.
[[nodiscard]] Status Launch(const CudaKernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes,
                            void** args, void* stream = nullptr);

// Device memory owned by RAII: freed on destruction. Movable, not copyable.
class DeviceBuffer {
 public:
  [[nodiscard]] static Expected<DeviceBuffer> Allocate(std::size_t bytes, int device = 0);

  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  // Synchronous copies of `bytes` (at most size()) to / from the buffer start.
  [[nodiscard]] Status CopyFromHost(const void* host, std::size_t bytes);
  [[nodiscard]] Status CopyToHost(void* host, std::size_t bytes) const;

  [[nodiscard]] std::uint64_t device_ptr() const { return ptr_; }  // CUdeviceptr
  // The address of the device pointer, for a kernel's args array.
  [[nodiscard]] void* arg() { return &ptr_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] int device() const { return device_; }

 private:
  DeviceBuffer(std::uint64_t ptr, std::size_t size, int device)
      : ptr_(ptr), size_(size), device_(device) {}
  void Reset();

  std::uint64_t ptr_ = 0;
  std::size_t size_ = 0;
  int device_ = 0;
};

}  // namespace qdcache::client
