// The source kinds a client can send (qdcache.v1.SourceKind), by the names
// the CLI (--kind), the warm manifest, the C ABI and Python take, and by
// file extension. One table; none of those interfaces names a kind itself.
#pragma once

#include <string>
#include <string_view>

#include "common/expected.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::client {

// "llvm" (LLVM IR, text or bitcode: the default), "ptx", "nvvm", "cuda". INVALID_ARGUMENT
// for any other name, listing the known ones.
[[nodiscard]] Expected<v1::SourceKind> ParseSourceKind(std::string_view name);

// The kind a file's extension names: ".ptx" is PTX, ".nvvm" NVVM IR, ".cu" and
// ".cuh" CUDA C++; anything else (".ll",
// ".bc", none) is LLVM IR, whose reader tells text from bitcode.
[[nodiscard]] v1::SourceKind SourceKindOfPath(std::string_view path);

// "llvm, ptx, nvvm, cuda": for help texts and messages.
[[nodiscard]] std::string SourceKindNames();

}  // namespace qdcache::client
