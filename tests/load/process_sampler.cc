#include "tests/load/process_sampler.h"

#include <filesystem>
#include <fstream>
#include <string>

namespace qdcache::load {

std::optional<ProcessSample> SampleProcess(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  ProcessSample sample;
  std::ifstream status(proc + "/status");
  if (!status) return std::nullopt;
  bool found = false;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) {
      sample.rss_kib = std::stoull(line.substr(6));  // "VmRSS:   123456 kB"
      found = true;
    }
  }
  if (!found) return std::nullopt;  // a zombie has no VmRSS
  std::error_code ec;
  for (std::filesystem::directory_iterator it(proc + "/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++sample.fds;
  }
  if (ec) return std::nullopt;
  return sample;
}

}  // namespace qdcache::load
