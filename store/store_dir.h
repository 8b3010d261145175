// The store's directory on disk: creating it, telling a RocksDB database from
// an unrelated directory, and moving an incompatible store aside. Internal to
// the store.
#pragma once

#include <string>
#include <string_view>

#include "common/expected.h"

namespace qdcache::store {

// Creates `path` and its parents if missing and checks that it is a writable
// directory. FailedPrecondition / PermissionDenied with the reason otherwise.
[[nodiscard]] Status EnsureWritableDirectory(const std::string& path);

enum class DirectoryKind {
  kEmpty,     // nothing there yet: a fresh store is created
  kDatabase,  // holds only files a RocksDB database writes
  kForeign,   // holds other files: never touched, the caller refuses it
};

// Precondition: `path` is an existing directory.
[[nodiscard]] Expected<DirectoryKind> ClassifyDirectory(const std::string& path);

// Renames `path` to "<path>.incompatible-<unix-seconds>" (with a "-N" suffix
// if that name is taken), creates an empty directory in its place and logs a
// warning naming `reason`. Returns the new path. Nothing is deleted: the old
// store stays for inspection. When `path` is a symbolic link, the directory
// it points to is moved and re-created; the link stays.
[[nodiscard]] Expected<std::string> MoveAside(const std::string& path, std::string_view reason);

}  // namespace qdcache::store
