// Waiting for text to appear in a log file another process writes, as an
// event: inotify wakes the wait whenever the file's directory changes, and a
// pidfd when the writer dies. No polling, no sleeps.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace qdcache::testing {

// The size of `path` now (0 if it does not exist): an offset to wait from.
[[nodiscard]] std::size_t FileSize(const std::string& path);

// True once `needle` appears in `path` at or after byte `from`; false when
// process `writer` (if > 0) has exited without writing it, or after `limit`
// (a bound on a hang, not a timing).
[[nodiscard]] bool WaitForLogText(const std::string& path, std::size_t from, std::string_view needle,
                                  pid_t writer, std::chrono::seconds limit = std::chrono::seconds(60));

}  // namespace qdcache::testing
