// This process's peak resident set (VmHWM), in KiB; 0 if unknown. A child
// reports its own: wait4's ru_maxrss also counts the memory of the parent
// that posix_spawn (vfork) borrowed before exec.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace qdcache::bench {

inline long PeakRssKib() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  long kib = 0;
  char line[256];
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::strncmp(line, "VmHWM:", 6) == 0) kib = std::atol(line + 6);
  }
  std::fclose(f);
  return kib;
}

}  // namespace qdcache::bench
