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

Libdevice LoadLibdevice(const std::string& configured_path) {
  Libdevice libdevice;
  libdevice.digest = "none";
#ifdef QDCACHE_HAVE_CUDA
  libdevice.path = configured_path;
  if (libdevice.path.empty()) libdevice.path = QDCACHE_LIBDEVICE_PATH;
  // CMake writes "<VAR>-NOTFOUND" when find_file() found nothing.
  if (llvm::StringRef(libdevice.path).ends_with("-NOTFOUND")) libdevice.path.clear();
  if (libdevice.path.empty()) return libdevice;
  auto file = llvm::MemoryBuffer::getFile(libdevice.path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file || (*file)->getBufferSize() == 0) {
    libdevice.digest = "probe-failed:libdevice";
    return libdevice;
  }
  libdevice.bitcode = (*file)->getBuffer().str();
  libdevice.digest = ToHex(Sha256(libdevice.bitcode));
#else
  (void)configured_path;
#endif
  return libdevice;
}

Cudadevrt LoadCudadevrt() {
  Cudadevrt lib;
  lib.digest = "none";
#ifdef QDCACHE_HAVE_CUDA
  lib.path = QDCACHE_CUDADEVRT_PATH;
  if (lib.path.empty() || llvm::StringRef(lib.path).ends_with("-NOTFOUND")) {
    lib.path.clear();
    return lib;
  }
  auto file = llvm::MemoryBuffer::getFile(lib.path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!file || (*file)->getBufferSize() == 0) {
    lib.digest = "probe-failed:cudadevrt";
    return lib;
  }
  lib.bytes = (*file)->getBuffer().str();
  lib.digest = ToHex(Sha256(lib.bytes));
#endif
  return lib;
}

ToolchainInfo DescribeToolchain(const Libdevice& libdevice, const Cudadevrt& cudadevrt) {
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
  info.cuda_available = cuda.available;
  return info;
}

}  // namespace qdcache::compiler
