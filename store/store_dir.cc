#include "store/store_dir.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace qdcache::store {
namespace fs = std::filesystem;
namespace {

// File names RocksDB itself creates in a database directory.
bool IsRocksDbFileName(const std::string& name) {
  auto starts = [&](std::string_view p) { return name.rfind(p, 0) == 0; };
  auto ends = [&](std::string_view s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return name == "CURRENT" || name == "LOCK" || name == "IDENTITY" || starts("LOG") ||
         starts("MANIFEST-") || starts("OPTIONS-") || ends(".log") || ends(".sst") ||
         ends(".blob") || ends(".dbtmp") || starts("CURRENT.");
}

}  // namespace

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
    if (!IsRocksDbFileName(entry.path().filename().string())) return DirectoryKind::kForeign;
  }
  return any ? DirectoryKind::kDatabase : DirectoryKind::kEmpty;
}

Expected<std::string> MoveAside(const std::string& path, std::string_view reason) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  std::string base = fs::path(path).lexically_normal().string();
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  base += ".incompatible-" + std::to_string(seconds);
  std::string target = base;
  std::error_code ec;
  for (int n = 1; fs::exists(target, ec); ++n) target = base + "-" + std::to_string(n);
  fs::rename(path, target, ec);
  if (ec) {
    return FailedPrecondition("store at '" + path + "' is incompatible (" + std::string(reason) +
                              ") and cannot be moved aside: " + ec.message());
  }
  spdlog::warn("store at '{}' is incompatible ({}); moved it to '{}' and starting a fresh store",
               path, reason, target);
  return target;
}

}  // namespace qdcache::store
