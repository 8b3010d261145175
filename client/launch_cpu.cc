#include "client/launch_cpu.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace qdcache::client {
namespace {

#if defined(__x86_64__)
constexpr Elf64_Half kHostMachine = EM_X86_64;
constexpr const char* kHostMachineName = "x86-64";
#elif defined(__aarch64__)
constexpr Elf64_Half kHostMachine = EM_AARCH64;
constexpr const char* kHostMachineName = "aarch64";
#else
#error "CpuModule: unsupported host architecture"
#endif

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

std::string DlErrorText() {
  const char* e = ::dlerror();
  return e ? std::string(e) : std::string("(no dlerror text)");
}

// A memfd name may not contain '/' and is limited to 249 bytes; keep it short
// and printable so it reads well in /proc/self/maps.
std::string MemfdName(std::string_view hint) {
  std::string name = "qdcache:";
  for (char c : hint.substr(0, 64)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    name.push_back(ok ? c : '_');
  }
  return name;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Status WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Internal(Errno("writing shared object to memfd"));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return Status::Ok();
}

// glibc's dlopen first matches the requested name against objects already
// loaded. "/proc/self/fd/N" of a module that is still loaded (its memfd long
// closed, N since reused) would match and hand back the old module. Every
// extra "./" spells the same file differently, so pick the first spelling no
// loaded object answers to.
Expected<std::string> UnusedProcFdPath(int fd) {
  std::string dots;
  for (int attempt = 0; attempt < 256; ++attempt, dots += "./") {
    std::string path = "/proc/self/fd/" + dots + std::to_string(fd);
    void* existing = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (existing == nullptr) return path;
    ::dlclose(existing);  // drop the reference RTLD_NOLOAD took
  }
  return Internal("no unused /proc/self/fd path for the module (too many stale loads)");
}

}  // namespace

Status ValidateSharedObject(std::string_view bytes) {
  auto bad = [](std::string why) {
    return InvalidArgument("not a loadable ELF shared object: " + std::move(why));
  };
  if (bytes.size() < EI_NIDENT || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    return bad("missing ELF magic (" + std::to_string(bytes.size()) + " bytes)");
  }
  if (static_cast<unsigned char>(bytes[EI_CLASS]) != ELFCLASS64) return bad("not a 64-bit ELF");
  if (static_cast<unsigned char>(bytes[EI_DATA]) != ELFDATA2LSB) return bad("not little-endian");
  if (bytes.size() < sizeof(Elf64_Ehdr)) return bad("truncated ELF header");
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  if (eh.e_type != ET_DYN) {
    return bad("ELF type " + std::to_string(eh.e_type) + " is not ET_DYN (a shared object)");
  }
  if (eh.e_machine != kHostMachine) {
    return bad("ELF machine " + std::to_string(eh.e_machine) + " is not " + kHostMachineName);
  }
  if (eh.e_phnum == 0 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
    return bad("missing or malformed program headers");
  }
  const std::uint64_t size = bytes.size();
  const std::uint64_t ph_bytes = std::uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr);
  if (eh.e_phoff > size || ph_bytes > size - eh.e_phoff) {
    return bad("truncated: program headers end past the end of the data");
  }
  bool has_load = false;
  for (std::uint64_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, bytes.data() + eh.e_phoff + i * sizeof(Elf64_Phdr), sizeof ph);
    if (ph.p_type != PT_LOAD && ph.p_type != PT_DYNAMIC) continue;
    has_load |= ph.p_type == PT_LOAD;
    if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset) {
      return bad("truncated: segment " + std::to_string(i) + " ends at byte " +
                 std::to_string(ph.p_offset + ph.p_filesz) + " of " + std::to_string(size));
    }
  }
  if (!has_load) return bad("no loadable segment");
  if (eh.e_shoff != 0 && eh.e_shnum != 0) {
    const std::uint64_t sh_bytes = std::uint64_t{eh.e_shnum} * eh.e_shentsize;
    if (eh.e_shoff > size || sh_bytes > size - eh.e_shoff) {
      return bad("truncated: section headers end past the end of the data");
    }
  }
  return Status::Ok();
}

Expected<CpuModule> CpuModule::Load(std::string_view elf_bytes, std::string_view name_hint) {
  const std::string name(name_hint.empty() ? std::string_view("module") : name_hint);
  QDC_RETURN_IF_ERROR(
      ValidateSharedObject(elf_bytes).WithContext("loading CPU module '" + name + "'"));

  Fd fd(::memfd_create(MemfdName(name).c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd.get() < 0) return Internal(Errno("memfd_create"));
  QDC_RETURN_IF_ERROR(WriteAll(fd.get(), elf_bytes));
  // The bytes that were validated are the bytes that get mapped.
  (void)::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);

  QDC_ASSIGN_OR_RETURN(std::string path, UnusedProcFdPath(fd.get()));
  ::dlerror();  // clear any stale error
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return FailedPrecondition("dlopen of CPU module '" + name + "' failed: " + DlErrorText());
  }
  // The mapping keeps the memfd's contents alive; the descriptor closes here.
  return CpuModule(handle, name);
}

CpuModule::CpuModule(CpuModule&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), name_(std::move(other.name_)) {}

CpuModule& CpuModule::operator=(CpuModule&& other) noexcept {
  if (this != &other) {
    Reset();
    handle_ = std::exchange(other.handle_, nullptr);
    name_ = std::move(other.name_);
  }
  return *this;
}

CpuModule::~CpuModule() { Reset(); }

void CpuModule::Reset() {
  if (handle_ != nullptr) ::dlclose(handle_);
  handle_ = nullptr;
}

Expected<void*> CpuModule::Symbol(std::string_view name) const {
  if (handle_ == nullptr) return FailedPrecondition("CPU module was moved from");
  const std::string symbol(name);
  ::dlerror();
  void* address = ::dlsym(handle_, symbol.c_str());
  if (address == nullptr) {
    return NotFound("symbol '" + symbol + "' not found in CPU module '" + name_ +
                    "': " + DlErrorText());
  }
  return address;
}

}  // namespace qdcache::client
