#include "bundle/bundle_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace qdcache::bundle {
namespace {

Status OsError(const std::string& what, int err) {
  const Code code = err == ENOENT                     ? Code::kNotFound
                    : (err == EACCES || err == EPERM) ? Code::kPermissionDenied
                                                      : Code::kUnavailable;
  return Status(code, what + ": " + std::strerror(err));
}

}  // namespace

Sink StringSink(std::string* out) {
  return [out](std::string_view bytes) {
    out->append(bytes);
    return Status::Ok();
  };
}

Source StringSource(std::string_view bytes) {
  auto offset = std::make_shared<std::size_t>(0);
  return [bytes, offset](char* buffer, std::size_t size) -> Expected<std::size_t> {
    const std::size_t n = std::min(size, bytes.size() - *offset);
    std::memcpy(buffer, bytes.data() + *offset, n);
    *offset += n;
    return n;
  };
}

Expected<std::unique_ptr<AtomicFile>> AtomicFile::Create(const std::string& path) {
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  std::FILE* file = std::fopen(temp.c_str(), "wbx");
  if (file == nullptr && errno == EEXIST) {  // a leftover of a dead process with our pid
    std::remove(temp.c_str());
    file = std::fopen(temp.c_str(), "wbx");
  }
  if (file == nullptr) return OsError("cannot create " + temp, errno);
  return std::unique_ptr<AtomicFile>(new AtomicFile(path, std::move(temp), file));
}

AtomicFile::AtomicFile(std::string path, std::string temp, std::FILE* file)
    : path_(std::move(path)), temp_(std::move(temp)), file_(file) {}

AtomicFile::~AtomicFile() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  std::remove(temp_.c_str());
}

Sink AtomicFile::sink() {
  return [this](std::string_view bytes) -> Status {
    if (file_ == nullptr) return Internal("write to a committed file");
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
      return OsError("cannot write " + temp_, errno);
    }
    return Status::Ok();
  };
}

Status AtomicFile::Commit() {
  if (file_ == nullptr) return Internal("file committed twice");
  std::FILE* file = file_;
  file_ = nullptr;
  const bool flushed = std::fflush(file) == 0 && ::fsync(::fileno(file)) == 0;
  const int flush_errno = errno;
  const bool closed = std::fclose(file) == 0;
  if (!flushed || !closed) {
    Status s = OsError("cannot write " + temp_, flushed ? errno : flush_errno);
    std::remove(temp_.c_str());
    return s;
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    Status s = OsError("cannot rename " + temp_ + " to " + path_, errno);
    std::remove(temp_.c_str());
    return s;
  }
  return Status::Ok();
}

Expected<std::unique_ptr<InputFile>> InputFile::Open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return OsError("cannot open " + path, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return InvalidArgument(path + " is not a regular file");
  }
  std::FILE* file = ::fdopen(fd, "rb");  // reads of a regular file never block anyway
  if (file == nullptr) {
    const int err = errno;
    ::close(fd);
    return OsError("cannot open " + path, err);
  }
  return std::unique_ptr<InputFile>(
      new InputFile(path, file, static_cast<std::uint64_t>(st.st_size)));
}

InputFile::InputFile(std::string path, std::FILE* file, std::uint64_t size)
    : path_(std::move(path)), file_(file), size_(size) {}

InputFile::~InputFile() { std::fclose(file_); }

Source InputFile::source() {
  return [this](char* buffer, std::size_t size) -> Expected<std::size_t> {
    const std::size_t n = std::fread(buffer, 1, size, file_);
    if (n < size && std::ferror(file_)) return OsError("cannot read " + path_, errno);
    return n;
  };
}

}  // namespace qdcache::bundle
