#include "client/daemon_launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace qdcache::client {
namespace {

constexpr int kReadyFd = 3;

// Closes the descriptors it owns.
struct OwnedFd {
  int fd = -1;
  OwnedFd() = default;
  explicit OwnedFd(int f) : fd(f) {}
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// The grandchild, after the second fork: the daemon-to-be. Async-signal-safe
// calls only. Moves the descriptors above the ones they are going to
// replace first, so no dup2 overwrites a source that is still needed.
[[noreturn]] void ExecDaemon(int null_fd, int log_fd, int ready_fd, const char* binary,
                             char* const argv[], const char* exec_failed_message) {
  const int null_high = ::fcntl(null_fd, F_DUPFD, 10);
  const int log_high = ::fcntl(log_fd, F_DUPFD, 10);
  const int ready_high = ::fcntl(ready_fd, F_DUPFD, 10);
  if (null_high < 0 || log_high < 0 || ready_high < 0) ::_exit(127);
  if (::dup2(null_high, 0) < 0 || ::dup2(log_high, 1) < 0 || ::dup2(log_high, 2) < 0 ||
      ::dup2(ready_high, kReadyFd) < 0) {
    ::_exit(127);
  }
  if (::syscall(SYS_close_range, kReadyFd + 1, ~0u, 0) != 0) {
    // Kernels before 5.9 (or a seccomp filter) lack close_range: close one by one.
    struct rlimit files {};
    const rlim_t last = ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY
                            ? files.rlim_cur
                            : 65536;
    for (rlim_t fd = kReadyFd + 1; fd < last; ++fd) ::close(static_cast<int>(fd));
  }
  // Handlers back to their defaults before unblocking: a signal pending now
  // must not run the caller's handler in this forked copy.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig)
    ::sigaction(sig, &dfl, nullptr);  // ignored ones survive exec
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (::chdir("/") != 0) ::_exit(127);
  ::execve(binary, argv, environ);
  [[maybe_unused]] ssize_t n = ::write(2, exec_failed_message, std::strlen(exec_failed_message));
  ::_exit(127);
}

// Reads the readiness pipe until "ready\n", EOF or the deadline.
enum class Readiness { kReady, kExited, kTimedOut };
Readiness AwaitReady(int fd, std::chrono::steady_clock::time_point deadline) {
  std::string got;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Readiness::kTimedOut;
    pollfd p{fd, POLLIN, 0};
    const int rc =
        ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count() + 1, INT32_MAX)));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) return Readiness::kExited;  // poll itself failed: no answer will come
    if (rc == 0) continue;                  // the deadline is checked above
    char buf[64];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return got == "ready\n" ? Readiness::kReady : Readiness::kExited;
    got.append(buf, static_cast<std::size_t>(n));
    if (got == "ready\n") return Readiness::kReady;
    if (got.size() >= 6) return Readiness::kExited;  // not the handshake: treat as a failed start
  }
}

// Renames `log` to `log`.1, if it is a regular file and `log`.1 is absent
// or one too: the log path is derived from the socket path, and whatever a
// user keeps there (a link, a FIFO, a device) is not ours to move or replace.
Status RotateLog(const std::string& log) {
  const std::string old = log + ".1";
  struct stat st {};
  if (::lstat(log.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return FailedPrecondition(Errno("cannot rotate " + log));
  }
  if (!S_ISREG(st.st_mode)) {
    return FailedPrecondition(log + " exists and is not a regular file; refusing to replace it with the "
                              "daemon's log (choose another --socket, or remove it)");
  }
  if (::lstat(old.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return FailedPrecondition(old + " exists and is not a regular file; refusing to rotate the daemon's "
                              "log onto it");
  }
  if (::rename(log.c_str(), old.c_str()) != 0 && errno != ENOENT) {
    return FailedPrecondition(Errno("cannot rotate " + log));
  }
  return Status::Ok();
}

}  // namespace

std::string TailOfFile(const std::string& path, int max_lines) {
  if (max_lines <= 0) return "";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  constexpr std::streamoff kMax = 8192;
  in.seekg(size > kMax ? size - kMax : 0);
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  std::size_t begin = text.size();
  for (int lines = 0; lines < max_lines; ++lines) {
    const std::size_t nl = begin == 0 ? std::string::npos : text.rfind('\n', begin - 1);
    if (nl == std::string::npos) return text;
    begin = nl;
  }
  return text.substr(begin + 1);
}

Status LaunchDaemon(const LaunchPlan& plan) {
  std::vector<std::string> args = {plan.binary};
  args.insert(args.end(), plan.args.begin(), plan.args.end());
  args.push_back("--ready-fd");
  args.push_back(std::to_string(kReadyFd));
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string exec_failed = "qdcache: cannot execute " + plan.binary + "\n";

  // Keep the previous daemon's log (it may say why it died); start a new one.
  QDC_RETURN_IF_ERROR(RotateLog(plan.log_path));
  OwnedFd log(::open(plan.log_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (log.fd < 0) return Unavailable(Errno("cannot create " + plan.log_path));
  OwnedFd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (null.fd < 0) return Unavailable(Errno("cannot open /dev/null"));
  int ready_pipe[2], pid_pipe[2];
  if (::pipe2(ready_pipe, O_CLOEXEC) != 0) return Unavailable(Errno("pipe"));
  OwnedFd ready_read(ready_pipe[0]), ready_write(ready_pipe[1]);
  if (::pipe2(pid_pipe, O_CLOEXEC) != 0) return Unavailable(Errno("pipe"));
  OwnedFd pid_read(pid_pipe[0]), pid_write(pid_pipe[1]);

  const pid_t child = ::fork();
  if (child < 0) return Unavailable(Errno("fork"));
  if (child == 0) {
    // The intermediate process: a new session, so the daemon (its child, not
    // a session leader) never gets a controlling terminal back.
    if (::setsid() < 0) ::_exit(1);
    const pid_t daemon = ::fork();
    if (daemon == 0) {
      ExecDaemon(null.fd, log.fd, ready_write.fd, argv[0], argv.data(), exec_failed.c_str());
    }
    if (daemon > 0) {
      [[maybe_unused]] ssize_t n = ::write(pid_write.fd, &daemon, sizeof daemon);
    }
    ::_exit(daemon > 0 ? 0 : 1);
  }
  ready_write.Close();
  pid_write.Close();
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  pid_t daemon = -1;
  if (::read(pid_read.fd, &daemon, sizeof daemon) != static_cast<ssize_t>(sizeof daemon)) {
    return Unavailable("cannot start " + plan.binary + ": fork failed");
  }
  const auto deadline = std::chrono::steady_clock::now() + plan.ready_timeout;
  switch (AwaitReady(ready_read.fd, deadline)) {
    case Readiness::kReady:
      return Status::Ok();
    case Readiness::kExited:
      return Unavailable(plan.binary + " failed to start (log " + plan.log_path + "):\n" +
                         TailOfFile(plan.log_path));
    case Readiness::kTimedOut:
      ::kill(daemon, SIGKILL);
      return DeadlineExceeded(plan.binary + " was not ready within " +
                              std::to_string(plan.ready_timeout.count()) + " ms; killed it (log " +
                              plan.log_path + "):\n" + TailOfFile(plan.log_path));
  }
  return Internal("unreachable");
}

}  // namespace qdcache::client
