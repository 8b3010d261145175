// The options that shape a kernel's artifact key, as `compile`, `explain` and
// `warm` take them (flags or a manifest line), and the one mapping from them
// to a v1::KernelDescriptor.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/expected.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::cli {

struct KernelOptions {
  std::string target;  // "cuda:sm_90", "cpu:x86-64+avx2"
  std::string kind;    // "llvm", "ptx" (client/wire_kind.h); empty: by the file's extension
  std::vector<std::string> entries;
  // The fast key (client/fast_key.h), at most one of: hex, or text taken
  // as its own bytes. Both empty: no fast key.
  std::string fast_key_hex;
  std::string fast_key_text;
  std::string ns;            // namespace of the fast key
  // Compile options given, by catalogue name (common/compile_options.h);
  // the others are the daemon's defaults.
  std::map<std::string, std::uint32_t> options;
  std::map<std::string, std::string> key_extras;
  // CUDA C++ only: name expressions (--name-expression), macros (-D, -U),
  // and where headers come from (--header NAME=FILE, -I DIR: read by
  // AddCudaHeaders once the source is read).
  std::vector<std::string> name_expressions;
  std::vector<std::string> defines;
  std::vector<std::string> undefines;
  std::vector<std::string> header_flags;
  std::vector<std::string> include_dirs;
};

// Everything of the descriptor but its source (the caller reads that when it
// is about to send it), whose kind is `options.kind` or else the one
// `source_path`'s extension names. INVALID_ARGUMENT for a target that does
// not parse, an unknown kind, a fast key that is not hex (or given both ways), a namespace without
// a fast key, an unknown option or one out of range, or a key extra with an
// empty name.
[[nodiscard]] Expected<v1::KernelDescriptor> DescriptorWithoutIr(const KernelOptions& options,
                                                               std::string_view source_path);

// "NAME=VALUE" strings (--key-extra) into `key_extras`. INVALID_ARGUMENT for
// one without '=' or with an empty NAME.
[[nodiscard]] Status ParseKeyExtras(const std::vector<std::string>& name_values,
                                    std::map<std::string, std::string>* key_extras);

}  // namespace qdcache::cli
