#include "tests/support/daemon_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

#include "tests/support/subprocess.h"

namespace qdcache::testing {

std::string DaemonBinary() { return QDCACHE_DAEMON_BINARY; }
std::string CliBinary() { return QDCACHE_CLI_BINARY; }
std::string TestData(const std::string& relative) { return std::string(QDCACHE_TEST_DATA) + "/" + relative; }

DaemonProcess::DaemonProcess(std::string dir, std::vector<std::string> extra_args)
    : dir_(std::move(dir)),
      socket_(dir_ + "/qdcached.sock"),
      store_(dir_ + "/store"),
      log_path_(dir_ + "/qdcached.log"),
      extra_args_(std::move(extra_args)) {}

DaemonProcess::~DaemonProcess() {
  if (pid_ > 0) Kill();
}

namespace {

// Writes "LISTEN_PID=<pid>" into `buf` (at least 32 bytes) without
// allocating: it runs between fork and exec.
void FormatListenPid(char* buf, pid_t pid) {
  const char prefix[] = "LISTEN_PID=";
  char digits[16];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + pid % 10);
    pid /= 10;
  } while (pid > 0);
  char* out = buf;
  for (const char* p = prefix; *p != '\0'; ++p) *out++ = *p;
  while (n > 0) *out++ = digits[--n];
  *out = '\0';
}

}  // namespace

void DaemonProcess::Start() {
  Launch();
  AwaitReady();
}

void DaemonProcess::Launch() {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  int log_fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  // Socket activation puts the listening socket at fd 3 (SD_LISTEN_FDS_START).
  const bool activated = activation_fd_ >= 0;
  const int ready_target = activated ? 4 : 3;
  std::vector<std::string> argv = {DaemonBinary()};
  if (paths_on_command_line_) argv.insert(argv.end(), {"--socket", socket_, "--store", store_});
  argv.insert(argv.end(), {"--ready-fd", std::to_string(ready_target), "--log-level", log_level_});
  argv.insert(argv.end(), extra_args_.begin(), extra_args_.end());
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  EnvChanges changes = env_;
  if (activated) changes.insert(changes.end(), {"LISTEN_FDS=1", "LISTEN_PID", "LISTEN_FDNAMES"});
  std::vector<std::string> environment = EnvironmentWith(changes);
  char listen_pid[32] = "";
  std::vector<char*> envp;
  for (std::string& e : environment) envp.push_back(e.data());
  if (activated) envp.push_back(listen_pid);  // filled in by the child
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    // The daemon dies with the test, even when the test aborts.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    if (child_setup_ && !child_setup_()) ::_exit(126);
    // Move every source above the targets first (one may sit at fd 3 or 4);
    // dup2 then clears O_CLOEXEC on the targets, so they survive exec.
    const int ready_fd = ::fcntl(ready[1], F_DUPFD_CLOEXEC, 10);
    const int log = ::fcntl(log_fd, F_DUPFD_CLOEXEC, 10);
    const int listen = activated ? ::fcntl(activation_fd_, F_DUPFD_CLOEXEC, 10) : 0;
    if (ready_fd < 0 || log < 0 || listen < 0) ::_exit(127);
    if (activated) {
      if (::dup2(listen, 3) < 0) ::_exit(127);
      FormatListenPid(listen_pid, ::getpid());
    }
    if (::dup2(ready_fd, ready_target) < 0 || ::dup2(log, 1) < 0 || ::dup2(log, 2) < 0) ::_exit(127);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::close(ready[1]);
  ::close(log_fd);
  ready_fd_ = ready[0];
}

void DaemonProcess::AwaitReady() {
  // Blocks until the daemon writes "ready\n", or closes the pipe by exiting.
  std::string got;
  char buf[16];
  ssize_t n;
  while ((n = ::read(ready_fd_, buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
  ::close(ready_fd_);
  ready_fd_ = -1;
  if (got != "ready\n") {
    int status = Wait();
    throw std::runtime_error("qdcached did not start (exit " + std::to_string(status) + "):\n" + log());
  }
}

int DaemonProcess::Wait() {
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool DaemonProcess::Alive() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == 0) return true;
  pid_ = -1;  // exited, and now reaped
  return false;
}

bool WaitForProcessExit(pid_t pid, std::chrono::milliseconds deadline) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return errno == ESRCH;  // already gone (and reaped)
  const auto until = std::chrono::steady_clock::now() + deadline;
  bool exited = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    pollfd p{pidfd, POLLIN, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(std::max<long long>(left.count(), 0)));
    if (rc < 0 && errno == EINTR) continue;
    exited = rc > 0;
    break;
  }
  ::close(pidfd);
  return exited;
}

std::optional<int> DaemonProcess::WaitForExit(std::chrono::seconds deadline) {
  if (pid_ <= 0) return std::nullopt;
  if (!WaitForProcessExit(pid_, deadline)) return std::nullopt;
  return Wait();
}

int DaemonProcess::Stop() {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  return Wait();
}

void DaemonProcess::Kill() {
  if (ready_fd_ >= 0) {
    ::close(ready_fd_);
    ready_fd_ = -1;
  }
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  Wait();
}

std::string DaemonProcess::log() const {
  try {
    return ReadFileOrDie(log_path_);
  } catch (const std::exception&) {
    return "";
  }
}

// The HOST:PORT the daemon logged after `marker` (up to one of `ends`), as
// server.cc logs its listeners before it reports ready.
std::string DaemonProcess::ReportedAddress(std::string_view marker, const char* ends, const char* what) const {
  const std::string text = log();
  const std::size_t at = text.rfind(marker);
  if (at == std::string::npos) throw std::runtime_error(std::string("qdcached reported no ") + what + ":\n" + text);
  const std::size_t begin = at + marker.size();
  return text.substr(begin, text.find_first_of(ends, begin) - begin);
}

// "listening on tcp HOST:PORT (...)"
std::string DaemonProcess::TcpAddress() const { return ReportedAddress("listening on tcp ", " \n", "TCP address"); }

// "metrics on http://HOST:PORT/metrics (...)"
std::string DaemonProcess::MetricsAddress() const {
  return ReportedAddress("metrics on http://", "/\n", "metrics address");
}

}  // namespace qdcache::testing
