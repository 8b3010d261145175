// Loading a CPU artifact (an ELF shared object compiled by the daemon) straight
// from memory: memfd_create + write + dlopen("/proc/self/fd/N"). No file is
// ever written to disk, so there is nothing to clean up or to race on.
//
// Ownership: a CpuModule owns one dlopen handle and dlcloses it when
// destroyed; pointers returned by Symbol() dangle after that. Movable, not
// copyable. Loading the same bytes twice gives two independent instances
// (separate globals), because each load is a distinct in-memory file.
//
// Thread-safety: Load and Symbol may be called from any thread (the dynamic
// loader serializes itself); one CpuModule must not be destroyed while
// another thread uses it.
#pragma once

#include <string>
#include <string_view>

#include "common/expected.h"

namespace qdcache::client {

class CpuModule {
 public:
  // `elf_bytes` must be an ELF64 shared object (ET_DYN) for this machine
  // (x86-64 on x86-64 hosts); anything else is refused with InvalidArgument
  // before the loader sees it. `name_hint` names the module in error messages
  // and in /proc/self/maps ("memfd:qdcache:<hint>"). Loader failures
  // (missing dependencies, undefined symbols under RTLD_NOW) come back as
  // FailedPrecondition carrying dlerror()'s text.
  [[nodiscard]] static Expected<CpuModule> Load(std::string_view elf_bytes,
                                                std::string_view name_hint);

  CpuModule(CpuModule&& other) noexcept;
  CpuModule& operator=(CpuModule&& other) noexcept;
  CpuModule(const CpuModule&) = delete;
  CpuModule& operator=(const CpuModule&) = delete;
  ~CpuModule();

  // Address of a symbol defined by (or visible from) this module. NotFound
  // with dlerror()'s text when it does not exist.
  [[nodiscard]] Expected<void*> Symbol(std::string_view name) const;

  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  CpuModule(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
  void Reset();

  void* handle_ = nullptr;
  std::string name_;
};

// Checks that `bytes` look like a loadable ELF shared object for this
// machine: header, class, byte order, type, machine, and that every program
// header and loadable segment lies inside the bytes (a truncated object would
// otherwise fault inside the loader when it touches pages past the end).
// InvalidArgument saying what is wrong.
[[nodiscard]] Status ValidateSharedObject(std::string_view bytes);

}  // namespace qdcache::client
