#include "common/output_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

namespace qdcache {
namespace {

constexpr int kMaxSymlinkHops = 40;

Status OsError(const std::string& what, int err) {
  const Code code = (err == EACCES || err == EPERM || err == EROFS)      ? Code::kPermissionDenied
                    : (err == ENOSPC || err == EDQUOT || err == EFBIG)   ? Code::kResourceExhausted
                    : (err == ENOENT || err == ENOTDIR)                  ? Code::kNotFound
                                                                         : Code::kFailedPrecondition;
  return Status(code, what + ": " + std::strerror(err));
}

std::string Dirname(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string Basename(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The descriptor a path names by itself: /dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N, /proc/<our pid>/fd/N. Writing there means
// writing to that descriptor, never replacing what it points at.
std::optional<int> DescriptorOf(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  std::string_view rest;
  for (const std::string& prefix : {std::string("/dev/fd/"), std::string("/proc/self/fd/"),
                                   "/proc/" + std::to_string(::getpid()) + "/fd/"}) {
    if (path.rfind(prefix, 0) == 0) rest = std::string_view(path).substr(prefix.size());
  }
  int fd = -1;
  if (rest.empty() || std::from_chars(rest.data(), rest.data() + rest.size(), fd).ptr != rest.data() + rest.size()) {
    return std::nullopt;
  }
  return fd;
}

struct Resolved {
  std::string path;               // the final path after symbolic links
  std::optional<struct stat> st;  // absent: nothing there yet
  std::optional<int> descriptor;  // the path names one of our descriptors
};

Expected<Resolved> Resolve(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops <= kMaxSymlinkHops; ++hops) {
    if (std::optional<int> fd = DescriptorOf(p)) return Resolved{p, std::nullopt, fd};
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT) return Resolved{p, std::nullopt, std::nullopt};
      return OsError("cannot write " + path, errno);
    }
    if (!S_ISLNK(st.st_mode)) return Resolved{p, st, std::nullopt};
    std::string target(PATH_MAX, '\0');
    const ssize_t n = ::readlink(p.c_str(), target.data(), target.size());
    if (n < 0) return OsError("cannot follow the symbolic link " + p, errno);
    target.resize(static_cast<std::size_t>(n));
    p = target.front() == '/' ? target : Dirname(p) + "/" + target;
  }
  return FailedPrecondition("cannot write " + path + ": too many levels of symbolic links");
}

// A new file "<dir>/.<base>.qdcache-XXXXXXXXXXXX" created with O_EXCL, mode
// 0666 less the umask (as a file `cp` creates).
Expected<std::pair<int, std::string>> CreateTemp(const std::string& dir, const std::string& base) {
  const std::string stem = dir + "/." + base.substr(0, 200) + ".qdcache-";
  for (int attempt = 0; attempt < 64; ++attempt) {
    std::uint64_t r = 0;
    if (::getrandom(&r, sizeof r, 0) != sizeof r) r = static_cast<std::uint64_t>(::getpid()) * 7919 + attempt;
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%012llx", static_cast<unsigned long long>(r & 0xffffffffffffULL));
    std::string name = stem + suffix;
    const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd >= 0) return std::make_pair(fd, std::move(name));
    if (errno != EEXIST) return OsError("cannot create a file in " + dir, errno);
  }
  return FailedPrecondition("cannot create a file in " + dir + ": every name tried exists");
}

Status WriteAll(int fd, std::string_view bytes, const std::string& what) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return OsError("cannot write " + what, errno);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return Status::Ok();
}

Expected<int> ConnectUnixSocket(const std::string& path) {
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) return FailedPrecondition("cannot write " + path + ": socket path too long");
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return OsError("cannot write " + path, errno);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    ::close(fd);
    return OsError("cannot write to the socket " + path, err);
  }
  return fd;
}

void SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);  // some file systems refuse; the rename has happened either way
  ::close(fd);
}

// Copies the staged file into `destination` without replacing its inode:
// space first (nothing visible changes if the disk is full), then the bytes.
Status CopyInPlace(int staged, const std::string& destination, const std::string& what) {
  struct stat st {};
  if (::fstat(staged, &st) != 0) return OsError("cannot write " + what, errno);
  const int fd = ::open(destination.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
  if (fd < 0) return OsError("cannot write " + what, errno);
  struct stat dst {};
  Status result;
  if (::fstat(fd, &dst) != 0 || !S_ISREG(dst.st_mode)) {
    result = FailedPrecondition("cannot write " + what + ": it is no longer a regular file");
  } else if (st.st_size > 0 && ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, st.st_size) != 0 &&
             errno != EOPNOTSUPP && errno != ENOSYS) {
    result = OsError("cannot write " + what, errno);
  } else {
    char buffer[1 << 16];
    off_t offset = 0;
    while (result.ok()) {
      const ssize_t n = ::pread(staged, buffer, sizeof buffer, offset);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) result = OsError("cannot read back the staged copy of " + what, errno);
      if (n <= 0) break;
      std::string_view chunk(buffer, static_cast<std::size_t>(n));
      while (result.ok() && !chunk.empty()) {
        const ssize_t w = ::pwrite(fd, chunk.data(), chunk.size(), offset);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
          result = OsError("cannot write " + what, errno);
        } else {
          chunk.remove_prefix(static_cast<std::size_t>(w));
          offset += w;
        }
      }
    }
    if (result.ok() && (::ftruncate(fd, st.st_size) != 0 || ::fsync(fd) != 0)) {
      result = OsError("cannot write " + what, errno);
    }
  }
  if (::close(fd) != 0 && result.ok()) result = OsError("cannot write " + what, errno);
  return result;
}

}  // namespace

OutputFile::OutputFile(std::string path, std::string destination, Mode mode, int fd, std::string temp)
    : path_(std::move(path)), destination_(std::move(destination)), mode_(mode), fd_(fd), temp_(std::move(temp)) {}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());  // ours: created with O_EXCL
}

Expected<std::unique_ptr<OutputFile>> OutputFile::Open(const std::string& path) {
  if (path.empty()) return InvalidArgument("the output path is empty");
  QDC_ASSIGN_OR_RETURN(Resolved r, Resolve(path));
  auto make = [&](Mode mode, int fd, std::string temp) {
    return std::unique_ptr<OutputFile>(new OutputFile(path, r.path, mode, fd, std::move(temp)));
  };
  if (r.descriptor) {
    const int fd = ::fcntl(*r.descriptor, F_DUPFD_CLOEXEC, 3);
    if (fd < 0) return OsError("cannot write " + path, errno);
    return make(Mode::kStream, fd, "");
  }
  if (r.st) {
    const mode_t type = r.st->st_mode & S_IFMT;
    if (type == S_IFDIR) return FailedPrecondition("cannot write " + path + ": it is a directory");
    if (type == S_IFBLK) {
      return FailedPrecondition("cannot write " + path + ": it is a block device; refusing to write over it");
    }
    if (type == S_IFCHR || type == S_IFIFO) {
      const int fd = ::open(r.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (fd < 0) return OsError("cannot write " + path, errno);
      return make(Mode::kStream, fd, "");
    }
    if (type == S_IFSOCK) {
      QDC_ASSIGN_OR_RETURN(const int fd, ConnectUnixSocket(r.path));
      return make(Mode::kStream, fd, "");
    }
    if (type != S_IFREG) return FailedPrecondition("cannot write " + path + ": not a regular file");
    if (::faccessat(AT_FDCWD, r.path.c_str(), W_OK, AT_EACCESS) != 0) {
      return OsError("cannot write " + path, errno);
    }
  }

  const std::string dir = Dirname(r.path);
  Expected<std::pair<int, std::string>> temp = CreateTemp(dir, Basename(r.path));
  if (!temp.ok() && !r.st) {
    struct stat d {};
    if (::stat(dir.c_str(), &d) != 0 && errno == ENOENT) {
      return NotFound("cannot write " + path + ": the directory " + dir + " does not exist");
    }
    return temp.status().WithContext("cannot write " + path);
  }
  bool in_place = false;
  if (!temp.ok()) {
    // The directory takes no new file but the file itself may be written:
    // stage the bytes elsewhere and copy them in, as `cp` would write.
    const char* tmpdir = std::getenv("TMPDIR");
    temp = CreateTemp(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp", Basename(r.path));
    if (!temp.ok()) return temp.status().WithContext("cannot write " + path);
    in_place = true;
  }
  auto [fd, name] = std::move(temp).value();
  std::unique_ptr<OutputFile> out = make(Mode::kReplace, fd, std::move(name));
  if (r.st) {
    // A rename would break other hard links and give the file to us.
    in_place = in_place || r.st->st_nlink > 1;
    struct stat mine {};
    if (!in_place && ::fstat(fd, &mine) == 0 && (mine.st_uid != r.st->st_uid || mine.st_gid != r.st->st_gid) &&
        ::fchown(fd, r.st->st_uid, r.st->st_gid) != 0) {
      in_place = true;
    }
    if (!in_place && ::fchmod(fd, r.st->st_mode & 07777) != 0) {
      return OsError("cannot give " + out->temp_ + " the mode of " + path, errno);
    }
  }
  if (in_place) out->mode_ = Mode::kStagedInPlace;
  return out;
}

Status OutputFile::Write(std::string_view bytes) {
  if (fd_ < 0) return Internal("write to a committed output " + path_);
  return WriteAll(fd_, bytes, path_);
}

Status OutputFile::Commit() {
  if (fd_ < 0) return Internal("output " + path_ + " committed twice");
  const int fd = std::exchange(fd_, -1);
  if (mode_ == Mode::kStream) {
    if (::close(fd) != 0) return OsError("cannot write " + path_, errno);
    return Status::Ok();
  }
  if (mode_ == Mode::kStagedInPlace) {
    Status copied = CopyInPlace(fd, destination_, path_);
    ::close(fd);
    return copied;  // the destructor removes the staged copy
  }
  const bool synced = ::fsync(fd) == 0;
  const int sync_errno = errno;
  if (::close(fd) != 0 || !synced) return OsError("cannot write " + path_, synced ? errno : sync_errno);
  // The destination may have changed since Open: never rename over anything
  // but a regular file, and never over something that appeared meanwhile
  // unless it is one.
  for (int attempt = 0; attempt < 2; ++attempt) {
    struct stat st {};
    const bool exists = ::lstat(destination_.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
      return FailedPrecondition("cannot write " + path_ + ": it was replaced by something that is not a regular file");
    }
    const unsigned flags = exists ? 0 : RENAME_NOREPLACE;
    if (::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, destination_.c_str(), flags) == 0) {
      temp_.clear();
      SyncDirectory(Dirname(destination_));
      return Status::Ok();
    }
    if (errno != EEXIST) return OsError("cannot write " + path_, errno);
  }
  return FailedPrecondition("cannot write " + path_ + ": it keeps changing while being written");
}

Status WriteOutputFile(const std::string& path, std::string_view bytes) {
  QDC_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> out, OutputFile::Open(path));
  QDC_RETURN_IF_ERROR(out->Write(bytes));
  return out->Commit();
}

}  // namespace qdcache
