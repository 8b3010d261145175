// Decoding and validating a wire KernelDescriptor into what the compiler and
// the key derivation consume (a kind's options as its stages read them:
// compiler::OptionsForKind). Every refusal is INVALID_ARGUMENT naming the
// field; nothing here reads a file or runs LLVM.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/expected.h"
#include "compiler/compiler.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::engine {

struct DescriptorLimits {
  std::uint64_t max_ir_bytes = 64ull << 20;
  std::size_t max_fast_key_bytes = 1024;
  std::size_t max_namespace_bytes = 256;
  std::size_t max_entry_points = 4096;
  std::size_t max_key_extras = 64;
  std::size_t max_key_extra_bytes = 4096;
  // CUDA C++: headers (their bytes count towards max_ir_bytes with the
  // source), name expressions, and -D / -U macros together.
  std::size_t max_headers = 4096;
  std::size_t max_name_expressions = 4096;
  std::size_t max_macros = 1024;
};

struct DecodedKernel {
  // input.ir views the descriptor's bytes; input.kind says what they hold;
  // input.target is normalized (its ToString() is the canonical text).
  compiler::CompileInput input;
  std::vector<std::pair<std::string, std::string>> key_extras;  // sorted by name
  bool no_store = false;
  bool recache = false;
  // CUDA C++: the source with its headers, name expressions and macros in
  // one encoding (compiler::EncodeCudaProgram), which the kind's canonical
  // form is made from. Empty for every other kind.
  std::string program;
  // The dependencies' manifest (engine/manifest.h); "" for none.
  std::string manifest;
};

[[nodiscard]] Expected<compiler::Target> DecodeTarget(const v1::Target& target);

// The input kind of a descriptor's `kind` (a v1::SourceKind value, possibly
// one this daemon does not know) and bytes: LLVM IR (unspecified) is text or
// bitcode as the bytes say. INVALID_ARGUMENT for an unknown kind.
[[nodiscard]] Expected<compiler::InputKindId> DecodeSourceKind(int kind, std::string_view bytes);

// Length limits of a fast key and its namespace (descriptors and lookups).
[[nodiscard]] Status CheckFastKey(const std::string& fast_key, const std::string& ns,
                                  const DescriptorLimits& limits);

// Applies defaults, checks ranges, and collapses options the target never
// reads (CUDA-only options on a CPU target) so they cannot split the key.
[[nodiscard]] Expected<compiler::CompileOptions> DecodeOptions(const v1::CompileOptions& options,
                                                                compiler::TargetKind kind);

// The returned value views `descriptor.ir()`: keep the descriptor alive.
[[nodiscard]] Expected<DecodedKernel> DecodeKernel(const v1::KernelDescriptor& descriptor,
                                                    const DescriptorLimits& limits);

}  // namespace qdcache::engine
