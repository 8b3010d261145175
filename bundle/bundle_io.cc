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
  const Code code = (err == ENOENT || err == ENOTDIR)  ? Code::kNotFound
                    : (err == EACCES || err == EPERM) ? Code::kPermissionDenied
                                                      : Code::kFailedPrecondition;
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

Expected<std::unique_ptr<InputFile>> InputFile::Open(const std::string& path) {
  if (path == "-") {
    // Standard input, whatever it is (a pipe, usually); its size is unknown.
    const int fd = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
    std::FILE* file = fd < 0 ? nullptr : ::fdopen(fd, "rb");
    if (file == nullptr) {
      const int err = errno;
      if (fd >= 0) ::close(fd);
      return OsError("cannot read standard input", err);
    }
    return std::unique_ptr<InputFile>(new InputFile("<stdin>", file, 0));
  }
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
