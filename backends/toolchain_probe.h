// Start-up facts about the toolchain: versions that feed the cache key's
// toolchain fingerprint, and the libdevice bitcode the compiler links.
#pragma once

#include <string>

#include "compiler/compiler.h"

namespace qdcache::compiler {

// A file of the CUDA Toolkit the compiler links in (libdevice.10.bc,
// libcudadevrt.a), read once.
struct ToolkitFile {
  std::string path;    // empty: none found or configured
  std::string bytes;   // the file's contents; empty when unavailable
  std::string digest;  // hex SHA-256, "none", or "probe-failed:<what>"
};
using Libdevice = ToolkitFile;
using Cudadevrt = ToolkitFile;

// `configured_path` empty: the path CMake found (QDCACHE_LIBDEVICE_PATH), if
// any. Built without CUDA: always "none".
[[nodiscard]] Libdevice LoadLibdevice(const std::string& configured_path);
// libcudadevrt.a (link_cudadevrt), at the path CMake found
// (QDCACHE_CUDADEVRT_PATH).
[[nodiscard]] Cudadevrt LoadCudadevrt();

[[nodiscard]] ToolchainInfo DescribeToolchain(const Libdevice& libdevice, const Cudadevrt& cudadevrt);

}  // namespace qdcache::compiler
