// Running the project's real binaries from tests: spawn with arguments,
// capture output, wait for exit. No shell in between.
#pragma once

#include "tests/support/temp_dir.h"

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

// Changes to a child's environment: "NAME=VALUE" sets NAME, "NAME" removes it.
using EnvChanges = std::vector<std::string>;

// Runs `argv` to completion, capturing stdout and stderr. With `as_uid`, the
// child drops to that uid (and gid) before exec; needs root.
RunResult Run(const std::vector<std::string>& argv, std::optional<uid_t> as_uid = std::nullopt);
// The same in this process's environment with `env` applied.
RunResult Run(const std::vector<std::string>& argv, const EnvChanges& env);

// The same with `input` as the child's standard input (a pipe).
RunResult RunWithInput(const std::vector<std::string>& argv, const std::string& input, const EnvChanges& env = {});

// This process's environment with `changes` applied, as "NAME=VALUE" strings
// (build it before fork: execve in the child needs no allocation then).
std::vector<std::string> EnvironmentWith(const EnvChanges& changes);

// Full path of an executable `name` on $PATH, like a shell finds it; empty
// when absent.
std::string FindOnPath(const std::string& name);

std::string ReadFileOrDie(const std::string& path);
void WriteFileOrDie(const std::string& path, const std::string& bytes);

}  // namespace qdcache::testing
