#include "client/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

namespace qdcache::client {
namespace {

int FlockRetryingEintr(int fd, int operation) {
  int rc;
  do {
    rc = ::flock(fd, operation);
  } while (rc != 0 && errno == EINTR);
  return rc == 0 ? 0 : errno;
}

// A blocking flock handed to a helper thread, so the caller can give up at
// its deadline. Whoever finishes second closes the file when the caller has
// given up, which releases a lock granted too late.
struct LockWaiter {
  std::mutex mu;
  std::condition_variable cv;
  int fd = -1;
  bool done = false;       // guarded by mu
  int error = 0;           // guarded by mu; valid when done
  bool abandoned = false;  // guarded by mu
};

}  // namespace

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

Expected<FileLock> FileLock::Acquire(const std::string& path,
                                     std::chrono::steady_clock::time_point deadline) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Unavailable("cannot open lock file " + path + ": " + std::strerror(errno));
  const int err = FlockRetryingEintr(fd, LOCK_EX | LOCK_NB);
  if (err == 0) return FileLock(fd);
  if (err != EWOULDBLOCK) {
    ::close(fd);
    return Unavailable("cannot lock " + path + ": " + std::strerror(err));
  }
  auto waiter = std::make_shared<LockWaiter>();
  waiter->fd = fd;
  std::thread([waiter] {
    const int error = FlockRetryingEintr(waiter->fd, LOCK_EX);
    std::lock_guard lock(waiter->mu);
    waiter->done = true;
    waiter->error = error;
    if (waiter->abandoned) ::close(waiter->fd);
    waiter->cv.notify_one();
  }).detach();
  std::unique_lock lock(waiter->mu);
  if (!waiter->cv.wait_until(lock, deadline, [&] { return waiter->done; })) {
    waiter->abandoned = true;  // the helper closes the file once it returns
    return DeadlineExceeded("timed out waiting for " + path +
                            " (another process is starting the daemon)");
  }
  if (waiter->error != 0) {
    ::close(fd);
    return Unavailable("cannot lock " + path + ": " + std::strerror(waiter->error));
  }
  return FileLock(fd);
}

}  // namespace qdcache::client
