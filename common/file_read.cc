#include "common/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace qdcache {
namespace {

Status OpenError(const std::string& what, int err) {
  const std::string why = "cannot open " + what + ": " + std::strerror(err);
  if (err == ENOENT || err == ENOTDIR) return NotFound(what + " does not exist");
  if (err == EACCES || err == EPERM) return Status(Code::kPermissionDenied, why);
  return FailedPrecondition(why);
}

// Reads `fd` to its end into `text`, refusing more than `max_bytes`.
Status ReadAll(int fd, const std::string& what, std::size_t max_bytes, std::string* text) {
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return FailedPrecondition("cannot read " + what + ": " + std::strerror(errno));
    if (n == 0) return Status::Ok();
    text->append(buf, static_cast<std::size_t>(n));
    if (text->size() > max_bytes) {
      return FailedPrecondition(what + " is larger than " + std::to_string(max_bytes) + " bytes");
    }
  }
}

std::string Mode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

Status CheckKind(const struct stat& st, const std::string& what, FileAccess access) {
  if (S_ISDIR(st.st_mode)) return FailedPrecondition(what + " is a directory");
  const bool device_ok = access == FileAccess::kAny && S_ISCHR(st.st_mode);
  if (!S_ISREG(st.st_mode) && !device_ok) return FailedPrecondition(what + " is not a regular file");
  if (access == FileAccess::kNotShared && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return FailedPrecondition(what + " is writable by group or others (mode " + Mode(st.st_mode) +
                              "); whoever can write it decides what is trusted: chmod go-w it");
  }
  const mode_t shared = access == FileAccess::kPrivate ? (S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH)
                        : access == FileAccess::kNotWorld ? (S_IROTH | S_IWOTH)
                                                          : 0;
  if ((st.st_mode & shared) != 0) {
    return FailedPrecondition(what + " is readable or writable by " +
                              (access == FileAccess::kPrivate ? "group or others" : "others") + " (mode " +
                              Mode(st.st_mode) + "); it holds secrets: chmod 600 it");
  }
  return Status::Ok();
}

}  // namespace

Expected<std::string> ReadSmallFile(const std::string& path, const std::string& what, std::size_t max_bytes,
                                    FileAccess access) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return OpenError(what, errno);
  std::string text;
  struct stat st {};
  Status status = ::fstat(fd, &st) == 0 ? CheckKind(st, what, access)
                                        : FailedPrecondition("cannot stat " + what + ": " + std::strerror(errno));
  if (status.ok() && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > max_bytes) {
    status = FailedPrecondition(what + " is larger than " + std::to_string(max_bytes) + " bytes");
  }
  // Reads to the end, but never past the cap: a device (or a file that
  // grew) that goes on is refused, not read into memory.
  if (status.ok()) status = ReadAll(fd, what, max_bytes, &text);
  ::close(fd);
  if (!status.ok()) return status;
  return text;
}

Expected<std::string> ReadStdin(std::size_t max_bytes) {
  std::string text;
  QDC_RETURN_IF_ERROR(ReadAll(STDIN_FILENO, "<stdin>", max_bytes, &text));
  return text;
}

}  // namespace qdcache
