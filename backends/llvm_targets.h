// The two LLVM targets this library drives, initialised once per process.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace llvm {
class Target;
}

namespace qdcache::compiler {

// Canonical triples: every module is compiled for one of these.
inline constexpr llvm::StringLiteral kCudaTriple = "nvptx64-nvidia-cuda";
inline constexpr llvm::StringLiteral kCpuTriple = "x86_64-unknown-linux-gnu";

// Registers the NVPTX and X86 targets with LLVM's registry. Idempotent and
// thread-safe (std::call_once); every entry point of this library calls it.
void InitializeLlvmTargets();

// The registered target for `triple`; INTERNAL when LLVM was built without it.
[[nodiscard]] llvm::Expected<const llvm::Target*> LookupLlvmTarget(llvm::StringRef triple);

}  // namespace qdcache::compiler
