#include "bench/child_process.h"

#include <signal.h>
#include <spawn.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "tests/support/subprocess.h"

namespace qdcache::bench {
namespace {

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) line += (line.empty() ? "" : " ") + a;
  return line;
}

std::vector<char*> CArgv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const std::string& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

// Spawns `argv` with `pipe_child_end` at `target_fd` and `env` applied to
// the environment. The pipe's ends are close-on-exec in this process.
Expected<pid_t> Spawn(const std::vector<std::string>& argv, int pipe_child_end, int target_fd,
                      const std::vector<std::string>& env = {}) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_child_end, target_fd);
  std::vector<char*> args = CArgv(argv);
  const std::vector<std::string> environment = testing::EnvironmentWith(env);
  std::vector<char*> envp = CArgv(environment);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Unavailable("cannot run " + argv[0] + ": " + std::strerror(rc));
  return pid;
}

// Reads `fd` until end of file, or until `deadline` (false then).
bool ReadUntil(int fd, std::chrono::steady_clock::time_point deadline, std::string* out,
               char stop_at = '\0') {
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;  // the deadline, or poll itself failed
    // One byte at a time when looking for a line end, so nothing after it is consumed.
    const ssize_t n = ::read(fd, buffer, stop_at != '\0' ? 1 : sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    out->append(buffer, static_cast<std::size_t>(n));
    if (stop_at != '\0' && buffer[0] == stop_at) return true;
  }
}

void KillAndReap(pid_t pid) {
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

// Reaps `pid` if it exits before `deadline`: its wait status, or nullopt.
std::optional<int> ReapBy(pid_t pid, std::chrono::steady_clock::time_point deadline) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{pidfd, POLLIN, 0};
      const int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
      if (ready < 0 && errno == EINTR) continue;
      ::close(pidfd);
      if (ready <= 0) return std::nullopt;
      break;
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

Expected<TimedRun> RunTimed(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                            std::chrono::seconds limit) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Unavailable("pipe failed");
  const auto t0 = std::chrono::steady_clock::now();
  Expected<pid_t> pid = Spawn(argv, out[1], STDOUT_FILENO, env);
  ::close(out[1]);
  if (!pid.ok()) {
    ::close(out[0]);
    return pid.status();
  }
  TimedRun run;
  const bool ended = ReadUntil(out[0], t0 + limit, &run.out);
  ::close(out[0]);
  const std::optional<int> status = ended ? ReapBy(*pid, t0 + limit) : std::nullopt;
  if (!status) {
    KillAndReap(*pid);
    return DeadlineExceeded("`" + CommandLine(argv) + "` ran past " + std::to_string(limit.count()) + " s");
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.exit_code = WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
  return run;
}

Expected<std::string> RunChecked(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  QDC_ASSIGN_OR_RETURN(TimedRun run, RunTimed(argv, env));
  if (run.exit_code != 0) {
    return Internal("`" + CommandLine(argv) + "` exited " + std::to_string(run.exit_code));
  }
  return run.out;
}

Expected<std::unique_ptr<ServerProcess>> ServerProcess::Start(const std::vector<std::string>& argv,
                                                              std::string* ready_line) {
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return Unavailable("pipe failed");
  Expected<pid_t> pid = Spawn(argv, ready[1], 3);
  ::close(ready[1]);
  if (!pid.ok()) {
    ::close(ready[0]);
    return pid.status();
  }
  auto server = std::unique_ptr<ServerProcess>(new ServerProcess(*pid));
  // One line; EOF first means the child died before it was ready.
  std::string line;
  ReadUntil(ready[0], std::chrono::steady_clock::now() + std::chrono::minutes(1), &line, '\n');
  ::close(ready[0]);
  if (line.empty() || line.back() != '\n') {
    return Unavailable("`" + CommandLine(argv) + "` did not report ready");  // ~ServerProcess kills it
  }
  line.pop_back();
  *ready_line = line;
  return server;
}

ServerProcess::~ServerProcess() { KillAndReap(pid_); }

Expected<double> CpuSecondsOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return NotFound("no process " + std::to_string(pid));
  // Fields after the command name (which may hold spaces): state is the
  // 3rd field, utime the 14th and stime the 15th.
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i >= 14) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

Expected<double> WaitUntilQuiet(pid_t pid, double fraction, std::chrono::milliseconds window,
                                std::chrono::seconds limit) {
  const auto t0 = std::chrono::steady_clock::now();
  QDC_ASSIGN_OR_RETURN(double last, CpuSecondsOf(pid));
  int quiet = 0;
  while (quiet < 2 && std::chrono::steady_clock::now() - t0 < limit) {
    std::this_thread::sleep_for(window);  // a sampling interval, not a synchronisation
    QDC_ASSIGN_OR_RETURN(double now, CpuSecondsOf(pid));
    const double used = (now - last) / std::chrono::duration<double>(window).count();
    quiet = used < fraction ? quiet + 1 : 0;
    last = now;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace qdcache::bench
