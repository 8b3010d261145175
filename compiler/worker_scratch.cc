#include "compiler/worker_scratch.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

namespace qdcache::compiler {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "w-";

// The daemon pid in "w-<pid>-XXXXXX", or 0 for any other name.
pid_t OwnerOf(std::string_view name) {
  if (name.substr(0, kPrefix.size()) != kPrefix) return 0;
  name.remove_prefix(kPrefix.size());
  pid_t pid = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (ec != std::errc() || end == name.data() || end == name.data() + name.size() || *end != '-') return 0;
  return pid;
}

bool ProcessGone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

Expected<int> PrepareScratchRoot(const std::string& root) {
  if (::mkdir(root.c_str(), 0700) != 0 && errno != EEXIST) {
    return FailedPrecondition("cannot create the compile workers' scratch directory " + root + ": " +
                              std::strerror(errno));
  }
  struct stat st {};
  if (::lstat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return FailedPrecondition("the compile workers' scratch directory " + root + " is not a directory");
  }
  int removed = 0;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(root, ec)) {
    const pid_t owner = OwnerOf(entry.path().filename().string());
    if (owner <= 0 || owner == ::getpid() || !ProcessGone(owner)) continue;
    std::error_code removal;
    fs::remove_all(entry.path(), removal);
    if (!removal) ++removed;
  }
  if (ec) return FailedPrecondition("cannot list " + root + ": " + ec.message());
  return removed;
}

Expected<std::string> MakeScratchDir(const std::string& root) {
  std::error_code ec;
  const std::string base = root.empty() ? fs::temp_directory_path(ec).string() : root;
  if (ec) return Unavailable("no temporary directory for a compile worker: " + ec.message());
  std::string dir = base + "/" + std::string(kPrefix) + std::to_string(::getpid()) + "-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) {
    return Unavailable("cannot create a scratch directory for a compile worker in " + base + ": " +
                       std::strerror(errno));
  }
  return dir;
}

}  // namespace qdcache::compiler
