#include "tests/support/private_tmpfs.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace qdcache::testing {
namespace {

bool WriteAll(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

}  // namespace

PrivateTmpfs::PrivateTmpfs(std::string mount_point, std::uint64_t bytes)
    : mount_point_(std::move(mount_point)),
      mount_options_("size=" + std::to_string(bytes)),
      uid_map_(std::to_string(::geteuid()) + " " + std::to_string(::geteuid()) + " 1"),
      gid_map_(std::to_string(::getegid()) + " " + std::to_string(::getegid()) + " 1"),
      need_user_namespace_(::geteuid() != 0) {}

bool PrivateTmpfs::Enter() const {
  if (need_user_namespace_) {
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
    // An unprivileged process must give up setgroups before mapping gids.
    if (!WriteAll("/proc/self/setgroups", "deny") || !WriteAll("/proc/self/uid_map", uid_map_) ||
        !WriteAll("/proc/self/gid_map", gid_map_)) {
      return false;
    }
  } else if (::unshare(CLONE_NEWNS) != 0) {
    return false;
  }
  // Without this, the mount below would propagate back to the host's
  // namespace where / is a shared mount.
  if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
  return ::mount("tmpfs", mount_point_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
                 mount_options_.c_str()) == 0;
}

bool PrivateTmpfs::Available(std::string* why) const {
  int to_child[2], to_parent[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(to_parent, O_CLOEXEC) != 0) {
    *why = "pipe failed";
    return false;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    *why = "fork failed";
    return false;
  }
  if (pid == 0) {
    ::close(to_child[1]);
    ::close(to_parent[0]);
    // Reports errno (0: mounted), then waits until the parent has looked.
    const int result = Enter() ? 0 : (errno == 0 ? EPERM : errno);
    (void)!::write(to_parent[1], &result, sizeof result);
    char c;
    (void)!::read(to_child[0], &c, 1);
    ::_exit(0);
  }
  ::close(to_child[0]);
  ::close(to_parent[1]);
  int result = -1;
  const bool got = ::read(to_parent[0], &result, sizeof result) == sizeof result;
  bool ok = got && result == 0;
  if (!got) {
    *why = "the probe process died";
  } else if (result != 0) {
    *why = std::string("entering a mount namespace with a tmpfs: ") + std::strerror(result);
  } else {
    const std::string probe = PathFromOutside(pid, "probe");
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      ok = false;
      *why = "cannot reach the tmpfs through " + probe + ": " + std::strerror(errno);
    } else {
      ::close(fd);
    }
  }
  ::close(to_child[1]);  // lets the child exit
  ::close(to_parent[0]);
  ::waitpid(pid, nullptr, 0);
  return ok;
}

std::string PrivateTmpfs::PathFromOutside(pid_t pid, const std::string& name) const {
  return "/proc/" + std::to_string(pid) + "/root" + mount_point_ + "/" + name;
}

long long FillDisk(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  static const char zeros[64 * 1024] = {};
  long long written = 0;
  for (;;) {
    const ssize_t n = ::write(fd, zeros, sizeof zeros);
    if (n > 0) {
      written += n;
      continue;
    }
    const int error = n < 0 ? errno : ENOSPC;
    if (error == EINTR) continue;
    ::close(fd);
    return error == ENOSPC ? written : -1;
  }
}

}  // namespace qdcache::testing
