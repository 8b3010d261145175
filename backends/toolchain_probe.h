// Start-up facts about the toolchain: versions that feed the cache key's
// toolchain fingerprint, and the libdevice bitcode the compiler links.
#pragma once

#include <string>

#include "compiler/compiler.h"

namespace qdcache::compiler {

struct Libdevice {
  std::string path;     // empty: none configured
  std::string bitcode;  // file contents; empty when unavailable
  std::string digest;   // hex SHA-256, "none", or "probe-failed:libdevice"
};

// `configured_path` empty: the path CMake found (QDCACHE_LIBDEVICE_PATH), if
// any. Built without CUDA: always "none".
[[nodiscard]] Libdevice LoadLibdevice(const std::string& configured_path);

// libcudadevrt.a (link_cudadevrt), at the path CMake found
// (QDCACHE_CUDADEVRT_PATH); the same shape as Libdevice.
struct Cudadevrt {
  std::string path;
  std::string bytes;
  std::string digest;  // hex SHA-256, "none", or "probe-failed:cudadevrt"
};
[[nodiscard]] Cudadevrt LoadCudadevrt();

[[nodiscard]] ToolchainInfo DescribeToolchain(const Libdevice& libdevice, const Cudadevrt& cudadevrt);

}  // namespace qdcache::compiler
