// Resident memory and open file descriptors of a running process, read from
// /proc (Linux).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace qdcache::load {

struct ProcessSample {
  double at_seconds = 0;      // since the sampling started
  std::uint64_t rss_kib = 0;  // VmRSS
  std::uint64_t fds = 0;      // entries of /proc/PID/fd
  // Of those, the ones open on a file below `files_under` (the store's
  // tables, blob files, WAL, MANIFEST: they grow in number with the data).
  std::uint64_t fds_under = 0;
};

// The process's current VmRSS and fd count; nullopt once it is gone.
// `files_under`: a directory whose open files are also counted apart.
[[nodiscard]] std::optional<ProcessSample> SampleProcess(pid_t pid,
                                                         const std::string& files_under = "");

// The live children of `pid` (the daemon's compile workers), from
// /proc/PID/task/*/children.
[[nodiscard]] std::vector<pid_t> ChildrenOf(pid_t pid);

}  // namespace qdcache::load
