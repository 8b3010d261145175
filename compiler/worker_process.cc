#include "compiler/worker_process.h"

#include <algorithm>
#include <filesystem>

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compiler/worker_flags.h"
#include "compiler/worker_protocol.h"
#include "compiler/worker_scratch.h"

extern char** environ;

namespace qdcache::compiler {
namespace {

constexpr int kWorkerFd = 3;

std::string SignalName(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string MiB(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// Runs in the forked child: async-signal-safe calls only, then exec.
[[noreturn]] void ExecWorker(int fd, pid_t parent, std::uint64_t memory_limit, const char* path,
                             char* const argv[]) {
  ::setpgid(0, 0);  // terminal signals (Ctrl-C) go to the daemon, which stops its workers
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
  if (fd == kWorkerFd) {
    ::fcntl(fd, F_SETFD, 0);
  } else if (::dup2(fd, kWorkerFd) < 0) {
    ::_exit(127);
  }
  ::syscall(SYS_close_range, kWorkerFd + 1, ~0u, 0);
  if (memory_limit > 0) {
    rlimit limit{memory_limit, memory_limit};
    ::setrlimit(RLIMIT_AS, &limit);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(path, argv, environ);
  ::_exit(127);
}

}  // namespace

Expected<std::unique_ptr<WorkerProcess>> WorkerProcess::Spawn(const WorkerSpawnConfig& config) {
  // argv[0] names the process in ps; the binary is config.executable.
  std::vector<std::string> args = {"qdcached-compile-worker", kCompileWorkerFlag,
                                   "--fd=" + std::to_string(kWorkerFd)};
  const std::uint64_t max_answer = config.max_answer_bytes != 0 ? config.max_answer_bytes : kMaxFrameBytes;
  args.push_back(std::string(kMaxAnswerFlag) + std::to_string(max_answer));
  // A scratch directory per worker: a worker killed mid-link leaves its
  // files there, and Reap removes them.
  QDC_ASSIGN_OR_RETURN(std::string scratch, MakeScratchDir(config.scratch_root));
  std::error_code ec;
  args.push_back(std::string(kScratchFlag) + scratch);
  args.insert(args.end(), config.args.begin(), config.args.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    const int err = errno;
    std::filesystem::remove_all(scratch, ec);
    return Unavailable(std::string("socketpair: ") + strerror(err));
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    std::filesystem::remove_all(scratch, ec);
    return Unavailable(std::string("cannot fork a compile worker: ") + strerror(err));
  }
  if (pid == 0) {
    ExecWorker(fds[1], parent, config.memory_limit_bytes, config.executable.c_str(), argv.data());
  }
  ::close(fds[1]);

  // The worker keeps its answers within max_answer (it encodes the refusal
  // in a short frame); anything much longer means it is broken.
  constexpr std::uint64_t kFrameSlack = 64 << 10;
  std::unique_ptr<WorkerProcess> worker(new WorkerProcess(pid, fds[0], std::move(scratch),
                                                          config.memory_limit_bytes,
                                                          std::min(kMaxFrameBytes, max_answer + kFrameSlack)));
  CallControl start;
  start.deadline = std::chrono::steady_clock::now() + config.start_timeout;
  constexpr std::uint64_t kMaxHelloBytes = 64 << 10;
  Expected<std::string> frame = ReadFrame(worker->fd_, start, kMaxHelloBytes);
  worker::v1::Hello hello;
  // A worker that failed while starting may send a Response (an LLVM fatal
  // error) where the Hello belongs; its pid and LLVM version tell them apart.
  const bool hello_ok = frame.ok() && hello.ParseFromString(*frame) && hello.pid() == pid &&
                        !hello.llvm_version().empty();
  if (!hello_ok) {
    Status ended = worker->Reap();
    return Unavailable("compile worker " + config.executable + " did not start: " +
                       (frame.ok() ? "it sent no valid hello" : frame.status().message()) + " (" +
                       ended.message() + ")");
  }
  worker->toolchain_ = FromWire(hello);
  return worker;
}

WorkerProcess::~WorkerProcess() {
  if (alive()) (void)Reap();
}

Status WorkerProcess::Describe(int wait_status) const {
  const std::string who = "compile worker " + std::to_string(pid_);
  if (WIFSIGNALED(wait_status)) {
    return Internal("compiler crashed (" + SignalName(WTERMSIG(wait_status)) + ") in " + who);
  }
  const int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  if (code == kWorkerExitOutOfMemory) {
    return ResourceExhausted("compile exceeded the worker memory limit" +
                             (memory_limit_bytes_ > 0 ? " of " + MiB(memory_limit_bytes_) : std::string()) +
                             " (" + who + " ran out of memory)");
  }
  return Internal("compiler crashed: " + who + " exited with status " + std::to_string(code));
}

Status WorkerProcess::Reap() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) return Internal("waitpid: " + std::string(strerror(errno)));
  }
  std::error_code ec;
  std::filesystem::remove_all(scratch_, ec);
  return Describe(status);
}

Expected<worker::v1::Response> WorkerProcess::Call(const worker::v1::Request& request,
                                                   const CallControl& control) {
  if (!alive()) return Internal("compile worker is gone");
  std::string bytes;
  if (!request.SerializeToString(&bytes)) return Internal("cannot encode a compile worker request");
  if (Status sent = WriteFrame(fd_, bytes); !sent.ok()) {
    return Reap();  // it died before reading: say how
  }
  Expected<std::string> frame = ReadFrame(fd_, control, max_frame_bytes_);
  if (!frame.ok()) {
    const Code code = frame.status().code();
    if (code == Code::kCancelled || code == Code::kDeadlineExceeded) {
      (void)Reap();
      return frame.status().WithContext("compile worker " + std::to_string(pid_) + " stopped");
    }
    if (code == Code::kResourceExhausted) {  // it keeps answers within the limit itself
      (void)Reap();
      return Internal("compile worker " + std::to_string(pid_) + " is broken: " + frame.status().message());
    }
    // EOF: it exited or was killed by a signal; the wait status says which.
    return Reap();
  }
  worker::v1::Response response;
  if (!response.ParseFromString(*frame)) {
    (void)Reap();
    return Internal("compile worker " + std::to_string(pid_) + " sent an unreadable answer");
  }
  if (response.fatal()) (void)Reap();
  return response;
}

}  // namespace qdcache::compiler
