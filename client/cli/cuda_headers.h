// The headers a CUDA C++ source includes, read by the CLI (never by the
// daemon, which takes only what it is sent): --header NAME=FILE as given,
// and every `#include "name"` of the source and of each header found, looked
// up next to the file that includes it and then in each -I directory, as a
// compiler would. `#include <...>` is the CUDA toolkit's, resolved by the
// daemon; a quoted name found nowhere is left to it too (a toolkit header,
// or a missing one it names).
#pragma once

#include <string>
#include <vector>

#include "common/expected.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::cli {

// Adds the headers to `d` (whose `ir` is the source read from
// `source_path`). INVALID_ARGUMENT for a --header that is not NAME=FILE or
// names a header twice, and for an include the daemon would refuse (a
// computed one, an absolute path or ".."); NOT_FOUND for a --header FILE
// that cannot be read.
[[nodiscard]] Status AddCudaHeaders(const std::vector<std::string>& header_flags,
                                    const std::vector<std::string>& include_dirs, const std::string& source_path,
                                    v1::KernelDescriptor& d);

}  // namespace qdcache::cli
