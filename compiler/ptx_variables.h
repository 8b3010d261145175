// The sizes of the variables PTX declares, checked before ptxas sees them:
// ptxas counts bits and wraps past 2^61 bytes, so a `.global` array no
// GPU can hold would become a cubin that no driver loads.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/status.h"

namespace qdcache::compiler {

// INVALID_ARGUMENT naming the variable, its state space and its size when a
// `.global`, `.const`, `.shared` or `.local` variable that `canonical_ptx`
// (CanonicalPtx text) defines, at module scope or in a function, is larger
// than `max_bytes`. Declarations (`.extern`), unsized arrays and what does not
// read as a declaration are left to ptxas.
[[nodiscard]] Status CheckPtxVariableSizes(std::string_view canonical_ptx, std::uint64_t max_bytes);

}  // namespace qdcache::compiler
