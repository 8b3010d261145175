// ROCm's device libraries (the AMD counterpart of libdevice): ocml (math),
// ockl (kernel helpers) and the oclc_* control libraries, each of which
// defines one constant the other two branch on (__oclc_finite_only_opt,
// __oclc_ISA_version, ...). Read once from a directory; linked per compile
// as clang's -mlink-builtin-bitcode does: only what the kernel needs,
// internalized.
#pragma once

#include <map>
#include <string>

#include "backends/amdgpu_processor.h"
#include "backends/libdevice_link.h"
#include "common/compile_options.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace qdcache::compiler {

struct DeviceLibs {
  std::string dir;                           // where they were read; empty: none found or configured
  std::map<std::string, std::string> files;  // "ocml.bc", "oclc_daz_opt_on.bc", ... -> bytes
  // hex SHA-256 over every file's name and bytes (the toolchain
  // fingerprint's share), or "none", or "probe-failed:rocm device libs".
  std::string digest = "none";
  std::string missing;  // why there are none; empty when there are
};

// Reads ocml.bc, ockl.bc and every oclc_*.bc of `configured_dir`, or when it
// is empty of the directory CMake found (QDCACHE_DEVICE_LIBS_DIR). A
// directory without ocml.bc and ockl.bc gives none, saying why.
[[nodiscard]] DeviceLibs LoadDeviceLibs(const std::string& configured_dir);

// The control libraries a compile links, chosen as clang chooses them:
// finite-only and unsafe math from fast_math, denormals flushed (daz) with
// fast_math, correctly rounded sqrt unless fast_math, the wavefront size, the
// processor's ISA version and the code object (ABI) version.
[[nodiscard]] std::vector<std::string> DeviceLibControlFiles(const AmdgpuProcessor& processor,
                                                             const CompileOptions& options,
                                                             unsigned code_object_version);

// Links into `module` (triple and datalayout already the target's) what it
// needs of ocml and ockl, then of the control libraries, internalizing all of
// it. FAILED_PRECONDITION when there are no device libraries, or when the
// linked code needs a control library the directory lacks (naming it: ROCm
// 5.2's libraries know no gfx942 or gfx11 ISA version). Returns where linked
// code calls intrinsics this LLVM does not know, as LinkLibdevice does.
[[nodiscard]] llvm::Expected<UnknownIntrinsicOrigins> LinkDeviceLibs(llvm::Module& module, const DeviceLibs& libs,
                                                                     const AmdgpuProcessor& processor,
                                                                     const CompileOptions& options,
                                                                     unsigned code_object_version);

}  // namespace qdcache::compiler
