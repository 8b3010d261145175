// Writing a file a user named (`-o`, `--ptx-out`, `lookup -o DIR`,
// `inspect -o`, `export --out`) the way `cp` and `cc -o` do, without ever
// harming what is already at that path:
//
//   absent, or a regular file   written to a temporary file in the same
//                               directory, fsynced and renamed into place: a
//                               failed or abandoned write leaves the
//                               destination as it was and no temporary file.
//                               An existing file keeps its mode and owner.
//   a regular file with other   written in place (after the whole content
//   hard links, or whose owner  is staged and the space reserved), so the
//   we cannot keep              links and the owner stay.
//   a symbolic link             followed to its final target, which is
//                               treated as above (a dangling link creates
//                               its target, as `cp` does).
//   a character device, FIFO    opened and written in place: `-o /dev/null`,
//   or socket; /dev/stdout,     a FIFO another process reads, `-o /dev/stdout`
//   /dev/fd/N, /proc/self/fd/N  (written to the descriptor, never replaced).
//   a directory, a block device refused with FAILED_PRECONDITION.
//
// Errors: PERMISSION_DENIED when the file or its directory may not be
// written, NOT_FOUND when its directory does not exist, RESOURCE_EXHAUSTED
// when the disk is full, FAILED_PRECONDITION for the rest (the wrong kind of
// file: a directory, a block device), each naming the path. Never
// UNAVAILABLE: that code means "no daemon serves".
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/expected.h"

namespace qdcache {

// One output being written. Not thread-safe.
class OutputFile {
 public:
  // Decides how `path` is written (see above) and opens what it needs: the
  // temporary file, or the device / FIFO / socket / descriptor itself (a FIFO
  // blocks here until a reader opens it, as with `cp`).
  [[nodiscard]] static Expected<std::unique_ptr<OutputFile>> Open(const std::string& path);
  // An uncommitted output is abandoned: its temporary file is removed and the
  // destination is left as it was (bytes already written to a device, FIFO
  // or descriptor cannot be taken back).
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  [[nodiscard]] Status Write(std::string_view bytes);
  // Makes the output final: fsync and rename (or the in-place copy), or the
  // close of the device. Called at most once.
  [[nodiscard]] Status Commit();

  [[nodiscard]] const std::string& path() const { return path_; }

  enum class Mode {
    kReplace,        // temporary file renamed over the destination
    kStagedInPlace,  // temporary file copied into the destination at Commit
    kStream,         // the destination itself (device, FIFO, socket, descriptor)
  };
  [[nodiscard]] Mode mode() const { return mode_; }

 private:
  OutputFile(std::string path, std::string destination, Mode mode, int fd, std::string temp);
  std::string path_;         // as the user named it, for messages
  std::string destination_;  // after following symbolic links
  Mode mode_;
  int fd_;                   // -1 once committed or closed
  std::string temp_;         // the temporary file we created; empty for kStream
};

// Open + Write + Commit.
[[nodiscard]] Status WriteOutputFile(const std::string& path, std::string_view bytes);

}  // namespace qdcache
