// Shared helpers for the compiler tests: test data, one compiler per process,
// ELF header peeking, and loading a compiled shared object from memory.
#pragma once

#include <dlfcn.h>
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compiler.h"

namespace qdcache::compiler::testing {

inline std::string ReadTestData(const std::string& relative) {
  std::ifstream in(std::string(QDCACHE_TEST_DATA) + "/" + relative, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline Compiler& TheCompiler() {
  static const std::unique_ptr<Compiler> compiler = MakeInProcessCompiler();
  return *compiler;
}

inline bool CudaAvailable() { return TheCompiler().toolchain().cuda_available; }

inline Target Cuda(const std::string& sm) {
  Target t;
  t.kind = TargetKind::kCuda;
  t.sm = sm;
  return t;
}

inline Target Cpu(const std::string& cpu, std::vector<std::string> features = {}) {
  Target t;
  t.kind = TargetKind::kCpu;
  t.cpu = cpu;
  t.features = std::move(features);
  return t;
}

inline CompileInput Input(std::string_view ir, Target target, CompileOptions options = {},
                          std::vector<std::string> entries = {}) {
  CompileInput input;
  input.ir = ir;
  input.target = std::move(target);
  input.options = options;
  input.entry_points = std::move(entries);
  return input;
}

// The 64-bit ELF header of `bytes`, or false when it is not one.
inline bool ReadElfHeader(const std::string& bytes, Elf64_Ehdr* header) {
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
    return false;
  std::memcpy(header, bytes.data(), sizeof(Elf64_Ehdr));
  return header->e_ident[EI_CLASS] == ELFCLASS64;
}

// dlopen()s an in-memory shared object through a memfd; closes on destruction.
class LoadedLibrary {
 public:
  explicit LoadedLibrary(const std::string& bytes) {
    fd_ = ::memfd_create("qdcache-test-kernel", MFD_CLOEXEC);
    if (fd_ < 0 || ::write(fd_, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
      return;
    const std::string path = "/proc/self/fd/" + std::to_string(fd_);
    handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) error_ = ::dlerror();
  }
  LoadedLibrary(const LoadedLibrary&) = delete;
  LoadedLibrary& operator=(const LoadedLibrary&) = delete;
  ~LoadedLibrary() {
    if (handle_ != nullptr) ::dlclose(handle_);
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] bool ok() const { return handle_ != nullptr; }
  [[nodiscard]] const std::string& error() const { return error_; }
  template <typename Fn>
  Fn* Get(const char* name) const {
    return reinterpret_cast<Fn*>(::dlsym(handle_, name));
  }

 private:
  int fd_ = -1;
  void* handle_ = nullptr;
  std::string error_;
};

// Runs `program` found on PATH (no absolute paths); true on exit status 0.
inline bool RunTool(const std::string& command_line) {
  return std::system(command_line.c_str()) == 0;
}

inline bool ToolOnPath(const std::string& tool) {
  return RunTool("command -v " + tool + " >/dev/null 2>&1");
}

}  // namespace qdcache::compiler::testing
