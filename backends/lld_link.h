// Relocatable x86-64 object -> ELF shared object, with lld in-process.
#pragma once

#include <string>
#include <string_view>

#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// Runs lld's ELF driver with -shared. lld is not re-entrant, so links are
// serialized by a process-wide mutex; it only reads and writes files, so each
// link hands it two memfds by their /proc/self/fd paths: no disk is touched
// (a full one included) and nothing is left behind. With
// `link_libm`, the libm this process has loaded (found with dladdr, so no path
// is hard-coded) becomes a DT_NEEDED dependency. lld's messages go to `log`.
// INTERNAL when lld fails, or reports that it cannot safely run again in this
// process (every later link then fails too: the process must be restarted).
[[nodiscard]] llvm::Expected<std::string> LinkSharedObject(std::string_view object, bool link_libm,
                                                           std::string& log);

}  // namespace qdcache::compiler
