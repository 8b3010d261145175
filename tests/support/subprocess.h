// Running the project's real binaries from tests: spawn with arguments,
// capture output, wait for exit. No shell in between.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace qdcache::testing {

struct RunResult {
  int exit_code = -1;  // -1: killed by a signal
  int signal = 0;
  std::string out;
  std::string err;
};

// Runs `argv` to completion, capturing stdout and stderr. With `as_uid`, the
// child drops to that uid (and gid) before exec; needs root.
RunResult Run(const std::vector<std::string>& argv, std::optional<uid_t> as_uid = std::nullopt);

// As Run, with this process's environment changed by `env`: "NAME=VALUE"
// sets NAME, a bare "NAME" removes it.
RunResult RunWithEnv(const std::vector<std::string>& argv, const std::vector<std::string>& env);

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on
// destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string ReadFileOrDie(const std::string& path);
void WriteFileOrDie(const std::string& path, const std::string& bytes);

}  // namespace qdcache::testing
