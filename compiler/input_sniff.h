// Names what a client sent when it is not LLVM IR, so that the refusal says
// "this is a gzip stream" rather than "NUL byte at offset 3" or "expected
// top-level entity". Looks at the leading bytes only; needs no LLVM.
#pragma once

#include <string_view>

namespace qdcache::compiler {

struct ForeignInput {
  // "a gzip stream (decompress it first)", "an ELF file (object code or a
  // cubin)", "PTX assembly", ...: fits "the input is <what>". Empty when
  // nothing matched.
  std::string_view what;
  // True when the bytes are certainly not text IR (a binary format, or text
  // in another encoding): refuse without parsing. False for text formats,
  // which only explain a parse error (IR could look like them in places).
  bool certain = false;
};

// Call only for bytes that are not LLVM bitcode (IsBitcode is false).
[[nodiscard]] ForeignInput SniffForeignInput(std::string_view bytes);

}  // namespace qdcache::compiler
