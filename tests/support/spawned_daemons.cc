#include "tests/support/spawned_daemons.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/support/daemon_process.h"

namespace qdcache::testing {
namespace {

std::vector<std::string> CommandLine(const std::filesystem::path& proc_dir) {
  std::ifstream in(proc_dir / "cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  std::size_t begin = 0;
  while (begin < raw.size()) {
    std::size_t end = raw.find('\0', begin);
    if (end == std::string::npos) end = raw.size();
    args.push_back(raw.substr(begin, end - begin));
    begin = end + 1;
  }
  return args;
}

// Waits for `pid` up to `deadline`; reaps it if it is this process's child.
std::optional<int> AwaitExit(pid_t pid, std::chrono::seconds deadline) {
  if (!WaitForProcessExit(pid, deadline)) return std::nullopt;
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return std::nullopt;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

SpawnedDaemons::SpawnedDaemons(std::string socket_path)
    : socket_path_(std::filesystem::path(std::move(socket_path)).lexically_normal().string()) {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
}

SpawnedDaemons::~SpawnedDaemons() {
  const std::vector<pid_t> pids = Find();
  for (pid_t pid : pids) ::kill(pid, SIGKILL);
  for (pid_t pid : pids) (void)AwaitExit(pid, std::chrono::seconds(60));
}

std::vector<pid_t> SpawnedDaemons::Find() const {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::vector<std::string> args = CommandLine(entry.path());
    if (args.empty() || std::filesystem::path(args[0]).filename() != "qdcached") continue;
    for (std::size_t i = 1; i + 1 < args.size(); ++i) {
      if (args[i] == "--socket" &&
          std::filesystem::path(args[i + 1]).lexically_normal().string() == socket_path_) {
        found.push_back(static_cast<pid_t>(std::stol(name)));
        break;
      }
    }
  }
  return found;
}

std::vector<std::optional<int>> SpawnedDaemons::Terminate(std::chrono::seconds deadline) {
  const std::vector<pid_t> pids = Find();
  for (pid_t pid : pids) ::kill(pid, SIGTERM);
  std::vector<std::optional<int>> statuses;
  for (pid_t pid : pids) statuses.push_back(AwaitExit(pid, deadline));
  return statuses;
}

}  // namespace qdcache::testing
