// The LLVM targets this library drives, initialised once per process.
#pragma once

#include "common/target.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace llvm {
class Target;
}

namespace qdcache::compiler {

// Canonical triples: every module is compiled for one of these.
inline constexpr llvm::StringLiteral kCudaTriple = "nvptx64-nvidia-cuda";
inline constexpr llvm::StringLiteral kCpuTriple = "x86_64-unknown-linux-gnu";
inline constexpr llvm::StringLiteral kAmdgpuTriple = "amdgcn-amd-amdhsa";

// Registers the NVPTX, X86 and AMDGPU targets with LLVM's registry. Idempotent and
// thread-safe (std::call_once); every entry point of this library calls it.
void InitializeLlvmTargets();

// The registered target for `triple`; INTERNAL when LLVM was built without it.
[[nodiscard]] llvm::Expected<const llvm::Target*> LookupLlvmTarget(llvm::StringRef triple);

// The canonical triple of `kind`'s targets.
[[nodiscard]] llvm::StringRef TripleOf(TargetKind kind);

}  // namespace qdcache::compiler
