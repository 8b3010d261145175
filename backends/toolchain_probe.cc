#include "backends/toolchain_probe.h"

#include "backends/nvrtc_compile.h"
#include "backends/nvvm_compile.h"

#include <gnu/libc-version.h>

#include "common/digest.h"
#include "backends/cuda_support.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/MemoryBuffer.h"

namespace qdcache::compiler {

namespace {

// `path` as CMake wrote it ("<VAR>-NOTFOUND" when find_file() found nothing).
ToolkitFile LoadToolkitFile(std::string path, std::string_view what) {
  ToolkitFile file;
  file.digest = "none";
  if (llvm::StringRef(path).ends_with("-NOTFOUND")) path.clear();
  if (path.empty()) return file;
  file.path = std::move(path);
  auto buffer = llvm::MemoryBuffer::getFile(file.path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer || (*buffer)->getBufferSize() == 0) {
    file.digest = "probe-failed:" + std::string(what);
    return file;
  }
  file.bytes = (*buffer)->getBuffer().str();
  file.digest = ToHex(Sha256(file.bytes));
  return file;
}

}  // namespace

Libdevice LoadLibdevice(const std::string& configured_path) {
#ifdef QDCACHE_HAVE_CUDA
  return LoadToolkitFile(configured_path.empty() ? QDCACHE_LIBDEVICE_PATH : configured_path, "libdevice");
#else
  (void)configured_path;
  return ToolkitFile{{}, {}, "none"};
#endif
}

Cudadevrt LoadCudadevrt() {
#ifdef QDCACHE_HAVE_CUDA
  return LoadToolkitFile(QDCACHE_CUDADEVRT_PATH, "cudadevrt");
#else
  return ToolkitFile{{}, {}, "none"};
#endif
}

ToolkitFile LoadCompilerRtBuiltins() {
#ifdef QDCACHE_COMPILER_RT_BUILTINS_PATH
  return LoadToolkitFile(QDCACHE_COMPILER_RT_BUILTINS_PATH, "compiler-rt builtins");
#else
  return ToolkitFile{{}, {}, "none"};
#endif
}

ToolchainInfo DescribeToolchain(const Libdevice& libdevice, const Cudadevrt& cudadevrt,
                                const ToolkitFile& builtins, const std::string& device_libs_digest) {
  const CudaSupport& cuda = GetCudaSupport();
  ToolchainInfo info;
  info.llvm_version = LLVM_VERSION_STRING;
  info.cuda_version = cuda.cuda_version;
  info.nvjitlink_version = cuda.cuda_version;  // CudaSupport probes nvJitLinkVersion()
  info.libc_version = gnu_get_libc_version();
  info.ptx_isa_version = cuda.PtxIsaString();
  info.libdevice_digest = libdevice.digest;
  info.cuda_sms = cuda.sms;
  info.ptx_sms = cuda.link_sms;
  info.nvvm_version = cuda.available ? NvvmVersion() : "none";
  info.nvrtc_version = cuda.available ? NvrtcVersion() : "none";
  info.cuda_headers_digest = cuda.available ? CudaHeadersDigest() : "none";
  info.cudadevrt_digest = cudadevrt.digest;
  info.compiler_rt_builtins_digest = builtins.digest;
  info.device_libs_digest = device_libs_digest;
  info.cuda_available = cuda.available;
  return info;
}

}  // namespace qdcache::compiler
