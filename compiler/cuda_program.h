// A CUDA C++ program as the daemon keys it and hands it to NVRTC: the main
// source, the headers the client sent by name, the name expressions whose
// lowered names it wants back, and its -D / -U macros, in one encoding
// (worker::v1::CudaProgram). Closed world: the checks here make sure that
// NVRTC can only ever open a header the client sent or one of the CUDA
// toolkit's own — every #include and __has_include names a relative path
// without "..", and none is computed by a macro. Nothing here reads a file.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/expected.h"

namespace qdcache::compiler {

// What a client sent, as the descriptor decoder collects it (views its bytes).
struct CudaSources {
  std::string_view source;
  std::vector<std::pair<std::string_view, std::string_view>> headers;  // name, content
  std::vector<std::string_view> name_expressions;
  std::vector<std::string_view> defines;    // "NAME" or "NAME=VALUE"
  std::vector<std::string_view> undefines;  // "NAME"
};

// The name NVRTC is given for the main source; diagnostics name it.
inline constexpr std::string_view kCudaSourceName = "kernel.cu";

// The encoding of `sources` as sent (not yet checked or canonical).
[[nodiscard]] std::string EncodeCudaProgram(const CudaSources& sources);

// The canonical encoding of an encoded program: headers sorted by name, name
// expressions, defines and undefines sorted and duplicates dropped. Checks
// (INVALID_ARGUMENT, naming the file and line where there is one): a NUL
// byte in any text, a header name that is empty, absolute, has a ".." or
// "." component or a backslash, two headers of one name, a macro that is
// not NAME[(PARAMS)][=VALUE] or is both defined and undefined, a name
// expression that is empty, holds a newline or ends with a backslash, and
// every #include / #include_next / #import / __has_include in the source,
// the headers, the macros' values and the name expressions: a computed one
// (a macro, not "..." or <...>) or one naming an absolute path or "..". `keep_debug` is unused: a
// CUDA program's comments move its __LINE__s.
[[nodiscard]] Expected<std::string> CanonicalCudaProgram(std::string_view encoded, bool keep_debug);

// Key components that show what a canonical program is made of:
// "cuda.source" (its SHA-256), "cuda.header.<name>" (each one's SHA-256),
// "cuda.defines" ("-DN=1 -UM"), "cuda.name_expressions" (one per line).
void DescribeCudaProgram(std::string_view canonical,
                         std::vector<std::pair<std::string, std::string>>& out);

// A canonical program, decoded (for the compiler).
struct CudaProgram {
  std::string source;
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::string> name_expressions;
  std::vector<std::string> defines;
  std::vector<std::string> undefines;
};
[[nodiscard]] Expected<CudaProgram> DecodeCudaProgram(std::string_view encoded);

}  // namespace qdcache::compiler
