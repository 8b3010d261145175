// Byte sinks and sources the bundle codec writes to and reads from, and the
// file-backed ones the CLI uses. Kept abstract so that tests run the codec
// in memory and the codec never sees a path.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/expected.h"

namespace qdcache::bundle {

// Writes all of `bytes` or fails.
using Sink = std::function<Status(std::string_view bytes)>;
// Reads up to `size` bytes into `buffer`: the count read, 0 only at the end.
using Source = std::function<Expected<std::size_t>(char* buffer, std::size_t size)>;

// A Sink that appends to `*out` (which must outlive it).
[[nodiscard]] Sink StringSink(std::string* out);
// A Source over `bytes` (which must outlive it).
[[nodiscard]] Source StringSource(std::string_view bytes);

// A file opened for reading ("-": standard input, of size 0 = unknown).
// NOT_FOUND / PERMISSION_DENIED / FAILED_PRECONDITION with the OS's reason.
// Not thread-safe.
class InputFile {
 public:
  [[nodiscard]] static Expected<std::unique_ptr<InputFile>> Open(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  [[nodiscard]] Source source();
  [[nodiscard]] std::uint64_t size() const { return size_; }  // at open; 0 for a stream

 private:
  InputFile(std::string path, std::FILE* file, std::uint64_t size);
  std::string path_;
  std::FILE* file_;
  std::uint64_t size_;
};

}  // namespace qdcache::bundle
