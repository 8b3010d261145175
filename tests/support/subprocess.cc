#include "tests/support/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <signal.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace qdcache::testing {

std::vector<std::string> EnvironmentWith(const EnvChanges& changes) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  for (const std::string& change : changes) {
    const std::string name = change.substr(0, change.find('='));
    std::erase_if(env, [&](const std::string& e) { return e.compare(0, name.size() + 1, name + "=") == 0; });
    if (change.find('=') != std::string::npos) env.push_back(change);
  }
  return env;
}

namespace {

RunResult RunWith(const std::vector<std::string>& argv, std::optional<uid_t> as_uid,
                  const std::vector<std::string>& environment, const std::optional<std::string>& input = std::nullopt) {
  int out_pipe[2], err_pipe[2], in_pipe[2] = {-1, -1};
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
      (input && pipe2(in_pipe, O_CLOEXEC) != 0)) {
    throw std::runtime_error("pipe failed");
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec. The child dies
    // with the test: a daemon expected to refuse to start but running
    // instead must not outlive a test killed for its timeout.
    if (dup2(out_pipe[1], 1) < 0 || dup2(err_pipe[1], 2) < 0) _exit(127);
    if (in_pipe[0] >= 0 && dup2(in_pipe[0], 0) < 0) _exit(127);
    if (as_uid && (setgroups(0, nullptr) != 0 || setgid(*as_uid) != 0 || setuid(*as_uid) != 0)) _exit(126);
    // After setuid, which clears the death signal.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (in_pipe[0] >= 0) {
    // A child that exits without reading all of it must fail the write, not kill the test.
    signal(SIGPIPE, SIG_IGN);
    close(in_pipe[0]);
    fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
  }
  RunResult result;
  // The child's stdin is fed as it reads, beside its output: neither side waits on a full pipe.
  pollfd fds[3] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}, {in_pipe[1], POLLOUT, 0}};
  std::size_t fed = 0;
  if (input && input->empty()) {
    close(in_pipe[1]);
    fds[2].fd = -1;
  }
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    if (poll(fds, 3, -1) < 0) continue;
    if (fds[2].fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = write(fds[2].fd, input->data() + fed, input->size() - fed);
      if (n > 0) fed += static_cast<std::size_t>(n);
      const bool again = n < 0 && (errno == EINTR || errno == EAGAIN);
      if ((n < 0 && !again) || fed == input->size()) {  // all fed, or the child closed its stdin
        close(fds[2].fd);
        fds[2].fd = -1;
      }
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (fds[2].fd >= 0) close(fds[2].fd);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace

RunResult Run(const std::vector<std::string>& argv, std::optional<uid_t> as_uid) {
  return RunWith(argv, as_uid, EnvironmentWith({}));
}

RunResult Run(const std::vector<std::string>& argv, const EnvChanges& env) {
  return RunWith(argv, std::nullopt, EnvironmentWith(env));
}

RunResult RunWithInput(const std::vector<std::string>& argv, const std::string& input, const EnvChanges& env) {
  return RunWith(argv, std::nullopt, EnvironmentWith(env), input);
}

std::string FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t begin = 0;
  while (begin <= dirs.size()) {
    const std::size_t colon = dirs.find(':', begin);
    const std::string dir = dirs.substr(begin, colon - begin);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string::npos) break;
    begin = colon + 1;
  }
  return "";
}

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void WriteFileOrDie(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f.flush()) throw std::runtime_error("cannot write " + path);
}

}  // namespace qdcache::testing
