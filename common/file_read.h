// Reading a small file named by a user (config, token and password files)
// without the ways that can go wrong: a FIFO that blocks the open, a
// directory that reads as empty, a device that never ends, a file too large
// to be what it claims to be.
#pragma once

#include <cstddef>
#include <string>

#include "common/expected.h"

namespace qdcache {

enum class FileAccess {
  kAny,      // a regular file, or a character device such as /dev/null
  kPrivate,  // a regular file that group and others may neither read nor write
  kNotWorld, // a regular file that others may neither read nor write (group may)
  kNotShared, // a regular file that group and others may read but not write (trusted keys)
};

// The whole content of `path`, at most `max_bytes`. Errors name the file as
// `what` ("config file /etc/qdcached/qdcached.toml"): NOT_FOUND when it does
// not exist, PERMISSION_DENIED when it may not be opened, FAILED_PRECONDITION
// for a directory, FIFO or socket, a file larger than max_bytes, one that
// `access` refuses (the message says to chmod it), or another I/O error.
// Never blocks on a FIFO. Never UNAVAILABLE: that code means "no daemon".
[[nodiscard]] Expected<std::string> ReadSmallFile(const std::string& path, const std::string& what,
                                                  std::size_t max_bytes, FileAccess access = FileAccess::kAny);

// Standard input to its end ("-" on a command line), at most `max_bytes`
// (FAILED_PRECONDITION past them, or for a read error).
[[nodiscard]] Expected<std::string> ReadStdin(std::size_t max_bytes);

}  // namespace qdcache
