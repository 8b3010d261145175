#include "tests/support/log_watch.h"

#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

namespace qdcache::testing {
namespace {

bool Contains(const std::string& path, std::size_t from, std::string_view needle) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  in.seekg(static_cast<std::streamoff>(from));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.find(needle) != std::string::npos;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::size_t FileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::size_t>(st.st_size) : 0;
}

bool WaitForLogText(const std::string& path, std::size_t from, std::string_view needle, pid_t writer,
                    std::chrono::seconds limit) {
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  Fd events{::inotify_init1(IN_CLOEXEC | IN_NONBLOCK)};
  // Watched before the first look, so no write between the two is missed.
  if (events.fd < 0 || ::inotify_add_watch(events.fd, dir.c_str(), IN_MODIFY | IN_CREATE) < 0) return false;
  Fd process{writer > 0 ? static_cast<int>(::syscall(SYS_pidfd_open, writer, 0)) : -1};
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (Contains(path, from, needle)) return true;
    if (writer > 0 && process.fd < 0) return false;  // already gone
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd fds[2] = {{events.fd, POLLIN, 0}, {process.fd, POLLIN, 0}};
    if (::poll(fds, process.fd >= 0 ? 2 : 1, static_cast<int>(left.count())) < 0) return false;
    char drain[4096];
    while (::read(events.fd, drain, sizeof drain) > 0) {
    }
    if (process.fd >= 0 && (fds[1].revents & POLLIN) != 0) return Contains(path, from, needle);
  }
}

}  // namespace qdcache::testing
