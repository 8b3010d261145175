// Scratch directories of compile workers (the TMPDIR of lld and nvJitLink),
// kept under one root that the daemon owns (its store directory) instead of
// the shared /tmp: "w-<daemon pid>-XXXXXX", one per worker, removed when the
// worker is reaped. A daemon killed with SIGKILL cannot remove them; the
// next one to start on the same root reaps those whose daemon is gone.
#pragma once

#include <string>

#include "common/expected.h"

namespace qdcache::compiler {

// Creates `root` (0700) if missing and removes every scratch directory in it
// whose daemon process no longer exists; directories of live processes and
// anything not named like a scratch directory are left alone. Returns how
// many were removed. FAILED_PRECONDITION if `root` cannot be created or is
// not a directory.
[[nodiscard]] Expected<int> PrepareScratchRoot(const std::string& root);

// A new, empty scratch directory under `root` for a worker of this process.
// An empty `root` means the system's temporary directory.
[[nodiscard]] Expected<std::string> MakeScratchDir(const std::string& root);

}  // namespace qdcache::compiler
