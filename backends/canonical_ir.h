// The canonical identity of an IR input for one target: what
// Compiler::CanonicalIrDigest returns (see compiler.h for the contract).
#pragma once

#include <string_view>

#include "common/digest.h"
#include "common/target.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

// Thread-safe; each call owns its LLVMContext.
//
// Serialization: the module printed as text IR (Module::print, no annotation
// writer, no use-list orders) is streamed into SHA-256 after a version tag
// (format, LLVM version, debug-info mode). Text rather than bitcode because
// the printer writes only what the module holds, in an order fixed by walking
// it (metadata, attribute-group and unnamed-value numbers included), while the
// bitcode writer also writes context-wide tables (every metadata kind and
// sync-scope name ever registered in the context) and the producer string.
// Printing and hashing cost less than the parse and verify before them.
//
// `keep_parse`: the module read is kept for the compile of the same IR
// (kept_parse.h), and the digest made from a copy of it.
[[nodiscard]] llvm::Expected<Digest> ComputeCanonicalIrDigest(std::string_view ir,
                                                              const Target& target,
                                                              bool keep_debug_info,
                                                              bool keep_parse = false);

}  // namespace qdcache::compiler
