#include "tests/load/process_sampler.h"

#include <filesystem>
#include <fstream>
#include <string>

namespace qdcache::load {

std::optional<ProcessSample> SampleProcess(pid_t pid, const std::string& files_under) {
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
    if (files_under.empty()) continue;
    std::error_code link_ec;
    const std::string target = std::filesystem::read_symlink(it->path(), link_ec).string();
    if (!link_ec && target.rfind(files_under + "/", 0) == 0) ++sample.fds_under;
  }
  if (ec) return std::nullopt;
  return sample;
}

std::vector<pid_t> ChildrenOf(pid_t pid) {
  std::vector<pid_t> out;
  std::error_code ec;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (std::filesystem::directory_iterator it(tasks, ec), end; !ec && it != end; it.increment(ec)) {
    std::ifstream children(it->path() / "children");
    for (pid_t child; children >> child;) out.push_back(child);
  }
  return out;
}

}  // namespace qdcache::load
