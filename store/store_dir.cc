#include "store/store_dir.h"

#include "store/artifact_store.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace qdcache::store {
namespace fs = std::filesystem;
namespace {

// File names RocksDB itself creates in a database directory, and the
// owner's scratch subdirectory.
bool IsStoreFileName(const std::string& name) {
  if (name == kScratchSubdirectory) return true;
  auto starts = [&](std::string_view p) { return name.rfind(p, 0) == 0; };
  auto ends = [&](std::string_view s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return name == "CURRENT" || name == "LOCK" || name == "IDENTITY" || starts("LOG") ||
         starts("MANIFEST-") || starts("OPTIONS-") || ends(".log") || ends(".sst") ||
         ends(".blob") || ends(".dbtmp") || starts("CURRENT.");
}

// The command line of `pid`, for a message ("qdcached --store ..."); empty
// when it cannot be read.
std::string CommandOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string cmd;
  std::getline(in, cmd, '\0');
  return cmd;
}

}  // namespace

Status CheckStoreNotInUse(const std::string& path) {
  const std::string lock = path + "/LOCK";
  const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return Status::Ok();  // no database there yet, or none we could open anyway
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  const bool held = ::fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
  ::close(fd);
  if (!held) return Status::Ok();
  const std::string command = CommandOf(probe.l_pid);
  return FailedPrecondition("store '" + path + "' is in use by another process (pid " +
                            std::to_string(probe.l_pid) + (command.empty() ? "" : ", " + command) +
                            "): another qdcached already serves it; use its socket or choose another --store");
}

Status EnsureWritableDirectory(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) {
    return FailedPrecondition("cannot create store directory '" + path + "': " + ec.message());
  }
  if (!fs::is_directory(path, ec)) {
    return FailedPrecondition("store path '" + path + "' exists and is not a directory");
  }
  if (::access(path.c_str(), W_OK | X_OK) != 0) {
    return Status(Code::kPermissionDenied,
                  "store directory '" + path + "' is not writable: " + std::strerror(errno));
  }
  return Status::Ok();
}

Expected<DirectoryKind> ClassifyDirectory(const std::string& path) {
  std::error_code ec;
  fs::directory_iterator it(path, ec);
  if (ec) return FailedPrecondition("cannot list store directory '" + path + "': " + ec.message());
  bool any = false;
  for (const fs::directory_entry& entry : it) {
    any = true;
    if (!IsStoreFileName(entry.path().filename().string())) return DirectoryKind::kForeign;
  }
  return any ? DirectoryKind::kDatabase : DirectoryKind::kEmpty;
}

Expected<std::string> MoveAside(const std::string& path, std::string_view reason) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  std::error_code ec;
  // A store path that is a symbolic link stays one: the directory it points
  // to is moved aside and made anew, the user's link is left alone.
  const fs::path real = fs::is_symlink(path, ec) ? fs::canonical(path, ec) : fs::path(path);
  if (ec) return FailedPrecondition("cannot resolve the store path '" + path + "': " + ec.message());
  std::string base = real.lexically_normal().string();
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  const std::string directory = base;
  base += ".incompatible-" + std::to_string(seconds);
  std::string target = base;
  for (int n = 1; fs::symlink_status(target, ec).type() != fs::file_type::not_found; ++n) {
    target = base + "-" + std::to_string(n);
  }
  fs::rename(directory, target, ec);
  if (ec) {
    return FailedPrecondition("store at '" + path + "' is incompatible (" + std::string(reason) +
                              ") and cannot be moved aside: " + ec.message());
  }
  fs::create_directory(directory, target, ec);  // with the old directory's permissions
  if (ec) {
    return FailedPrecondition("moved the incompatible store at '" + path + "' to '" + target +
                              "' but cannot create a new one: " + ec.message());
  }
  spdlog::warn("store at '{}' is incompatible ({}); moved it to '{}' and starting a fresh store",
               path, reason, target);
  return target;
}

}  // namespace qdcache::store
