// The compile path: LLVM IR (text or bitcode) in, a cubin or an ELF shared
// object out. This interface is the seam at which compiles will later move into
// supervised worker processes; callers depend only on it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "compiler/options.h"
#include "compiler/target.h"

namespace qdcache::compiler {

enum class ArtifactKind { kCubin = 1, kSharedObject = 2 };

struct CompileInput {
  std::string_view ir;  // textual IR or bitcode (detected from the bytes)
  Target target;        // validated and normalized by the compiler
  CompileOptions options;
  // Names that must exist after codegen: CUDA kernels / CPU exported functions.
  // They do not narrow the output: CompileOutput::entries lists every entry.
  std::vector<std::string> entry_points;
};

// Per-entry facts the compiler knows; -1 where unknown.
struct EntryInfo {
  std::string name;
  int registers = -1;          // CUDA: from the nvJitLink/ptxas info log
  int shared_bytes = -1;       // CUDA: static shared memory
  int local_bytes = -1;        // CUDA: local (stack/spill) memory
  int max_threads_per_block = -1;  // CUDA: from maxntid / launch bounds, if given
};

struct StageTimings {
  double parse_seconds = 0;
  double optimize_seconds = 0;
  double codegen_seconds = 0;  // NVPTX -> PTX, or X86 -> object
  double link_seconds = 0;     // nvJitLink -> cubin, or lld -> .so
};

struct CompileOutput {
  ArtifactKind kind = ArtifactKind::kCubin;
  // entries: every kernel (CUDA) / exported function (CPU) of the module.
  std::string payload;  // cubin (ELF for the exact SM) or ELF shared object
  std::string ptx;      // CUDA only: the PTX that was linked
  std::vector<EntryInfo> entries;
  std::string log;      // warnings and info lines from LLVM / nvJitLink / lld
  StageTimings timings;
};

// Toolchain facts, probed once. A probe that fails yields "probe-failed:<what>".
struct ToolchainInfo {
  std::string llvm_version;       // "19.1.7"
  std::string cuda_version;       // nvJitLink's version "13.0", or "none" (built without CUDA)
  std::string ptx_isa_version;    // the PTX ISA chosen for codegen, e.g. "8.5", or "none"
  std::string libdevice_digest;   // hex SHA-256 of libdevice.10.bc, or "none"/"probe-failed:libdevice"
  std::vector<std::string> cuda_sms;  // SMs supported by both LLVM and nvJitLink
  bool cuda_available = false;
};

// Thread-safe: Compile() may be called from many threads at once.
class Compiler {
 public:
  virtual ~Compiler() = default;

  // Errors: INVALID_ARGUMENT for bad input (with line:column for text IR),
  // FAILED_PRECONDITION for CUDA targets when built without CUDA, INTERNAL for
  // toolchain failures. Never returns an empty payload on success.
  [[nodiscard]] virtual Expected<CompileOutput> Compile(const CompileInput& input) = 0;

  [[nodiscard]] virtual const ToolchainInfo& toolchain() const = 0;
};

struct CompilerConfig {
  // Overrides the libdevice.10.bc found at build time (empty: build-time path).
  std::string libdevice_path;
};

// LLVM + nvJitLink + lld in this process. Initialises LLVM targets once.
[[nodiscard]] std::unique_ptr<Compiler> MakeInProcessCompiler(const CompilerConfig& config = {});

}  // namespace qdcache::compiler
