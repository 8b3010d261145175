// Start-up facts about the toolchain: versions that feed the cache key's
// toolchain fingerprint, and the libdevice bitcode the compiler links.
#pragma once

#include <string>

#include "compiler/compiler.h"

namespace qdcache::compiler {

// A file of the toolchain the compiler links in (the CUDA Toolkit's
// libdevice.10.bc and libcudadevrt.a, compiler-rt's builtins), read once.
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
// LLVM's compiler-rt builtins archive for x86-64 (half and bfloat
// conversions, 128-bit integer arithmetic), which CPU kernels link statically,
// at the path CMake found (QDCACHE_COMPILER_RT_BUILTINS_PATH).
[[nodiscard]] ToolkitFile LoadCompilerRtBuiltins();

// `device_libs_digest`: DeviceLibs::digest (device_libs.h).
[[nodiscard]] ToolchainInfo DescribeToolchain(const Libdevice& libdevice, const Cudadevrt& cudadevrt,
                                              const ToolkitFile& builtins, const std::string& device_libs_digest);

}  // namespace qdcache::compiler
