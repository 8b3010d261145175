#include "backends/lld_link.h"

#include <pthread.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <atomic>
#include <mutex>
#include <optional>
#include <vector>

#include "backends/compile_error.h"
#include "backends/host_libm.h"
#include "lld/Common/Driver.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

LLD_HAS_DRIVER(elf)

namespace qdcache::compiler {
namespace {

std::mutex lld_mutex;
std::atomic<bool> lld_unusable{false};

// An anonymous in-memory file (memfd): lld's input, which it reads by the
// path /proc/self/fd/N, and where its output is kept.
class MemoryFile {
 public:
  static llvm::Expected<MemoryFile> Create(const char* name) {
    const int fd = ::memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) return ToolchainFailure(std::string("memfd_create for lld failed: ") + std::strerror(errno));
    return MemoryFile(fd);
  }
  MemoryFile(MemoryFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  MemoryFile& operator=(MemoryFile&&) = delete;
  ~MemoryFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] std::string Path() const { return "/proc/self/fd/" + std::to_string(fd_); }

  // Appends `bytes`; allocates nothing unless it fails.
  llvm::Error WriteRaw(std::string_view bytes) const {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return ToolchainFailure(std::string("cannot write a memfd for lld: ") + std::strerror(errno));
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return llvm::Error::success();
  }

  llvm::Expected<std::string> ReadAll() const {
    std::string bytes;
    char buffer[1 << 16];
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd_, buffer, sizeof buffer, at);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return ToolchainFailure(std::string("cannot read lld's output: ") + std::strerror(errno));
      if (n == 0) return bytes;
      bytes.append(buffer, static_cast<std::size_t>(n));
      at += n;
    }
  }

 private:
  explicit MemoryFile(int fd) : fd_(fd) {}
  int fd_;
};

// lld's output, a pipe that lld writes by the path /proc/self/fd/N (for a
// file that is not a regular one lld builds its output in memory and writes
// it through the path at the end; a memfd it cannot write, as it would put
// a temporary file beside it). A thread drains the pipe into a memfd while
// lld runs, so no output is too large for the pipe. The thread has a small
// stack and allocates nothing: a compile worker runs under an address-space
// limit, which a default thread (8 MiB of stack, a 64 MiB malloc arena)
// could exceed.
class PipeOutput {
 public:
  static llvm::Expected<PipeOutput> Create() {
    auto sink = MemoryFile::Create("qdcache-lld-kernel.so");
    if (!sink) return sink.takeError();
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      return ToolchainFailure(std::string("pipe for lld's output failed: ") + std::strerror(errno));
    }
    return PipeOutput(fds[0], fds[1], std::move(*sink));
  }
  PipeOutput(PipeOutput&& other) noexcept
      : read_(std::exchange(other.read_, -1)), write_(std::exchange(other.write_, -1)), sink_(std::move(other.sink_)) {}
  PipeOutput(const PipeOutput&) = delete;
  PipeOutput& operator=(const PipeOutput&) = delete;
  PipeOutput& operator=(PipeOutput&&) = delete;
  ~PipeOutput() {
    if (write_ >= 0) ::close(write_);
    if (draining_) ::pthread_join(drain_, nullptr);
    if (read_ >= 0) ::close(read_);
  }
  [[nodiscard]] std::string Path() const { return "/proc/self/fd/" + std::to_string(write_); }

  llvm::Error StartDraining() {
    pthread_attr_t attr;
    ::pthread_attr_init(&attr);
    ::pthread_attr_setstacksize(&attr, 64 * 1024);
    const int rc = ::pthread_create(&drain_, &attr, &PipeOutput::Drain, this);
    ::pthread_attr_destroy(&attr);
    if (rc != 0) return ToolchainFailure(std::string("cannot start lld's output reader: ") + std::strerror(rc));
    draining_ = true;
    return llvm::Error::success();
  }

  // Everything lld wrote: closes this end's writer, so the drain ends once
  // lld's own has been closed too.
  llvm::Expected<std::string> Finish() {
    ::close(std::exchange(write_, -1));
    if (std::exchange(draining_, false)) ::pthread_join(drain_, nullptr);
    if (error_ != 0) return ToolchainFailure(std::string("cannot keep lld's output: ") + std::strerror(error_));
    return sink_.ReadAll();
  }

 private:
  PipeOutput(int read, int write, MemoryFile sink) : read_(read), write_(write), sink_(std::move(sink)) {}

  static void* Drain(void* self) {
    auto* out = static_cast<PipeOutput*>(self);
    char buffer[16 * 1024];
    for (;;) {
      const ssize_t n = ::read(out->read_, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (n < 0) out->error_ = errno;
        return nullptr;
      }
      if (out->error_ != 0) continue;  // keep reading, so that lld never blocks on a full pipe
      if (llvm::Error error = out->sink_.WriteRaw(std::string_view(buffer, static_cast<std::size_t>(n)))) {
        llvm::consumeError(std::move(error));
        out->error_ = errno != 0 ? errno : EIO;
      }
    }
  }

  int read_;
  int write_;
  MemoryFile sink_;
  pthread_t drain_{};
  bool draining_ = false;
  int error_ = 0;  // written by the drain until it is joined
};

// lld failed on an object codegen made from the client's module: the module
// is at fault (sections of one name with incompatible flags, a relocation out
// of range) unless an error says lld could not read or write its files.
// Only the start of each error is matched: the rest may hold the client's
// section and symbol names.
bool IsLinkerIoFailure(llvm::StringRef messages) {
  llvm::SmallVector<llvm::StringRef> lines;
  messages.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (!line.consume_front("ld.lld: error: ")) continue;
    for (llvm::StringRef prefix : {"cannot open", "failed to open", "cannot create", "failed to write",
                                   "failed to commit", "cannot read", "unable to", "failed to mmap"}) {
      if (line.starts_with(prefix)) return true;
    }
  }
  return false;
}

// Replaces `from` (a /proc/self/fd/N path) where it is not the start of a
// longer number.
void Rename(std::string& messages, const std::string& from, std::string_view to) {
  if (from.empty()) return;  // every position would match, and the text grow without end
  for (std::size_t at = 0; (at = messages.find(from, at)) != std::string::npos;) {
    const std::size_t end = at + from.size();
    if (end < messages.size() && messages[end] >= '0' && messages[end] <= '9') {
      at = end;
      continue;
    }
    messages.replace(at, from.size(), to);
    at += to.size();
  }
}

}  // namespace

llvm::Expected<std::string> LinkSharedObject(std::string_view object, const LinkInputs& inputs,
                                             std::string& log) {
  auto input = MemoryFile::Create("qdcache-lld-kernel.o");
  if (!input) return input.takeError();
  if (llvm::Error error = input->WriteRaw(object)) return error;
  auto output = PipeOutput::Create();
  if (!output) return output.takeError();

  // An HSA code object is linked as clang's HIP toolchain links it: a plain
  // shared object with nothing left undefined.
  std::vector<std::string> args =
      inputs.code_object
          ? std::vector<std::string>{"ld.lld", "-shared", "--no-undefined", "-o", output->Path(), input->Path()}
          : std::vector<std::string>{"ld.lld",      "-shared",           "-z", "noexecstack", "-z",         "relro",
                                     "--build-id=none", "--exclude-libs=ALL", "-o", output->Path(), input->Path()};
  std::optional<MemoryFile> builtins;
  if (!inputs.builtins.empty()) {
    auto file = MemoryFile::Create("qdcache-lld-builtins.a");
    if (!file) return file.takeError();
    if (llvm::Error error = file->WriteRaw(inputs.builtins)) return error;
    builtins.emplace(std::move(*file));
    args.push_back(builtins->Path());
  }
  // The builtins may call libm (complex division): linked only if they do.
  if (inputs.libm || builtins) {
    const HostLibm& libm = GetHostLibm();
    if (!libm.error.empty()) return ToolchainFailure(libm.error);
    args.insert(args.end(), {"--as-needed", libm.path});
  }
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());

  std::string messages;
  {
    std::lock_guard<std::mutex> lock(lld_mutex);
    if (lld_unusable)
      return ToolchainFailure(
          "lld cannot run again in this process after an earlier crash; restart it");
    if (llvm::Error error = output->StartDraining()) return error;
    llvm::raw_string_ostream out(messages);
    llvm::raw_string_ostream err(messages);
    const lld::Result result = lld::lldMain(argv, out, err, {{lld::Gnu, &lld::elf::link}});
    out.flush();
    err.flush();
    // Name the files, not the descriptors they were read and written through.
    Rename(messages, input->Path(), "kernel.o");
    Rename(messages, output->Path(), inputs.code_object ? "kernel.hsaco" : "kernel.so");
    if (builtins) Rename(messages, builtins->Path(), "libclang_rt.builtins.a");
    if (inputs.libm || builtins) Rename(messages, GetHostLibm().path, "libm.so.6");
    if (!result.canRunAgain) {
      lld_unusable = true;
      return ToolchainFailure("lld crashed and cannot run again in this process: " + messages);
    }
    if (result.retCode != 0) {
      const llvm::StringRef text = llvm::StringRef(messages).trim();
      if (IsLinkerIoFailure(text)) return ToolchainFailure("lld failed: " + text);
      return BadInput("the linker rejected the module: " + text);
    }
  }
  if (!messages.empty()) log += messages;

  auto bytes = output->Finish();
  if (!bytes) return bytes.takeError();
  if (bytes->empty()) return ToolchainFailure("lld produced an empty shared object");
  return bytes;
}

}  // namespace qdcache::compiler
