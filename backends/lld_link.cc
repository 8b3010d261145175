#include "backends/lld_link.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "backends/compile_error.h"
#include "lld/Common/Driver.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

LLD_HAS_DRIVER(elf)

namespace qdcache::compiler {
namespace {

std::mutex lld_mutex;
std::atomic<bool> lld_unusable{false};

// A mkdtemp directory removed, with its contents, on destruction.
class ScratchDirectory {
 public:
  static llvm::Expected<ScratchDirectory> Create() {
    llvm::SmallString<128> pattern;
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, pattern);
    llvm::sys::path::append(pattern, "qdcache-lld-XXXXXX");
    std::string path(pattern.str());
    if (::mkdtemp(path.data()) == nullptr) {
      return ToolchainFailure("cannot create a scratch directory for lld under " + pattern.str());
    }
    return ScratchDirectory(std::move(path));
  }
  ScratchDirectory(ScratchDirectory&& other) noexcept : path_(std::move(other.path_)) {
    other.path_.clear();
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(ScratchDirectory&&) = delete;
  ~ScratchDirectory() {
    if (!path_.empty()) (void)llvm::sys::fs::remove_directories(path_);
  }
  [[nodiscard]] std::string File(llvm::StringRef name) const {
    llvm::SmallString<128> p(path_);
    llvm::sys::path::append(p, name);
    return std::string(p.str());
  }

 private:
  explicit ScratchDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// The file this process loaded libm from: dladdr on one of its functions.
llvm::Expected<std::string> LoadedLibmPath() {
  void* handle = ::dlopen("libm.so.6", RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) handle = ::dlopen("libm.so.6", RTLD_LAZY);
  if (handle == nullptr) return ToolchainFailure("libm is not loadable in this process");
  void* symbol = ::dlsym(handle, "cosf");
  Dl_info info{};
  const bool found = symbol != nullptr && ::dladdr(symbol, &info) != 0 && info.dli_fname != nullptr;
  std::string path = found ? info.dli_fname : "";
  ::dlclose(handle);
  if (path.empty()) return ToolchainFailure("cannot locate libm with dladdr");
  return path;
}

llvm::Error WriteFile(const std::string& path, std::string_view bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) return ToolchainFailure("cannot write " + path + ": " + ec.message());
  os.write(bytes.data(), bytes.size());
  os.close();
  if (os.has_error()) {
    const std::string why = os.error().message();
    os.clear_error();  // a stream destroyed with its error set calls report_fatal_error
    return ToolchainFailure("cannot write " + path + ": " + why);
  }
  return llvm::Error::success();
}

}  // namespace

llvm::Expected<std::string> LinkSharedObject(std::string_view object, bool link_libm,
                                             std::string& log) {
  auto scratch = ScratchDirectory::Create();
  if (!scratch) return scratch.takeError();
  const std::string input = scratch->File("kernel.o");
  const std::string output = scratch->File("kernel.so");
  if (llvm::Error error = WriteFile(input, object)) return error;

  std::vector<std::string> args = {"ld.lld", "-shared",         "-z", "noexecstack", "-z",
                                   "relro",  "--build-id=none", "-o", output,        input};
  if (link_libm) {
    auto libm = LoadedLibmPath();
    if (!libm) return libm.takeError();
    args.push_back(*libm);
  }
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());

  std::string messages;
  {
    std::lock_guard<std::mutex> lock(lld_mutex);
    if (lld_unusable)
      return ToolchainFailure(
          "lld cannot run again in this process after an earlier crash; restart it");
    llvm::raw_string_ostream out(messages);
    llvm::raw_string_ostream err(messages);
    const lld::Result result = lld::lldMain(argv, out, err, {{lld::Gnu, &lld::elf::link}});
    out.flush();
    err.flush();
    if (!result.canRunAgain) {
      lld_unusable = true;
      return ToolchainFailure("lld crashed and cannot run again in this process: " + messages);
    }
    if (result.retCode != 0)
      return ToolchainFailure("lld failed: " + llvm::StringRef(messages).trim());
  }
  if (!messages.empty()) log += messages;

  auto bytes =
      llvm::MemoryBuffer::getFile(output, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!bytes) return ToolchainFailure("cannot read lld's output: " + bytes.getError().message());
  if ((*bytes)->getBufferSize() == 0)
    return ToolchainFailure("lld produced an empty shared object");
  return (*bytes)->getBuffer().str();
}

}  // namespace qdcache::compiler
