// A small tmpfs that only one child process (and its children) can see: the
// way tests give a real daemon a disk that can fill up, without touching the
// machine's mounts. The child enters a new mount namespace (plus a user
// namespace when not root), makes every mount in it private and mounts the
// tmpfs over an existing directory; outside, the directory stays as it was.
// Other processes reach the tmpfs through /proc/<child pid>/root/<path>.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace qdcache::testing {

class PrivateTmpfs {
 public:
  // `mount_point` (absolute, an existing directory) gets a tmpfs of `bytes`.
  PrivateTmpfs(std::string mount_point, std::uint64_t bytes);

  // Run in a freshly forked, single-threaded child: enters the namespaces and
  // mounts the tmpfs. Only system calls (async-signal-safe), so it may run
  // between fork and exec. False on failure, with errno set.
  bool Enter() const;

  // Whether Enter() works on this machine (namespaces allowed, tmpfs
  // mountable) and the tmpfs is reachable from outside; tries it in a child.
  // On false, `why` says what failed.
  bool Available(std::string* why) const;

  // Path of `name` inside the tmpfs as seen from outside, through process
  // `pid` that entered it.
  std::string PathFromOutside(pid_t pid, const std::string& name) const;

  const std::string& mount_point() const { return mount_point_; }

 private:
  std::string mount_point_;
  std::string mount_options_;         // "size=N"
  std::string uid_map_, gid_map_;     // "<id> <id> 1": ourselves, unchanged
  bool need_user_namespace_ = false;  // not root
};

// Writes zeros to `path` until the filesystem is full (ENOSPC). Returns the
// bytes written, or -1 on any other error.
long long FillDisk(const std::string& path);

}  // namespace qdcache::testing
