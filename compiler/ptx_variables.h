// The sizes of the variables PTX declares, checked before ptxas sees them:
// ptxas counts bits and wraps past 2^61 bytes, so a `.global` array no
// GPU can hold would become a cubin that no driver loads.
#pragma once

#include <cstdint>
#include <string_view>

#include <string>

#include "common/expected.h"
#include "common/status.h"

namespace qdcache::compiler {

// INVALID_ARGUMENT naming the variable, its state space and its size when a
// `.global`, `.const`, `.shared` or `.local` variable that `canonical_ptx`
// (CanonicalPtx text) defines, at module scope or in a function, or all of
// one state space's together, are larger than `max_bytes`; also when a
// dimension is not a constant integer expression this reads (literals in
// PTX's bases with + - * / % << >> and parentheses): such a size is refused,
// not guessed. Declarations (`.extern`), unsized arrays and types it does not
// know (`.texref`) are left to ptxas.
[[nodiscard]] Status CheckPtxVariableSizes(std::string_view canonical_ptx, std::uint64_t max_bytes);

// CanonicalPtx(ptx, keep_debug) whose variables are within kMaxObjectBytes
// (ir_limits.h): the PTX input kind's canonical form, so that an oversized
// variable is refused in the daemon, before any worker runs.
[[nodiscard]] Expected<std::string> CanonicalSizedPtx(std::string_view ptx, bool keep_debug);

}  // namespace qdcache::compiler
