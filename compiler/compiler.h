// The compile path: LLVM IR (text or bitcode) in, a cubin or an ELF shared
// object out. Two implementations: the in-process one (LLVM in this
// process; what a compile worker runs) and the worker pool (worker_pool.h:
// each call runs in a supervised worker process). Callers depend only on it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/cancel_token.h"
#include "common/digest.h"
#include "common/expected.h"
#include "common/compile_options.h"
#include "common/target.h"
#include "compiler/input_kind.h"

namespace qdcache::compiler {

using qdcache::ArtifactKind;
using qdcache::CompileOptions;
using qdcache::NormalizeTarget;
using qdcache::ParseTarget;
using qdcache::Target;
using qdcache::TargetKind;

struct CompileInput {
  InputKindId kind = InputKindId::kLlvmText;  // what `ir` holds (RecogniseInput)
  std::string_view ir;  // the input's bytes: textual IR or bitcode
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
  int max_threads_per_block = -1;  // CUDA: from maxntid / launch bounds, if given; AMDGPU: max flat workgroup size
  // AMDGPU, from the code object's AMDHSA metadata (registers = vgprs, the
  // metadata's VGPR count, which includes AGPRs; shared_bytes = LDS,
  // local_bytes = private segment, -1 with a dynamic stack); 0 elsewhere.
  int sgprs = 0;
  int vgprs = 0;
  int agprs = 0;
  int wavefront_size = 0;
  int kernarg_bytes = 0;
};

struct StageTimings {
  double parse_seconds = 0;
  double optimize_seconds = 0;
  double codegen_seconds = 0;  // NVPTX -> PTX, or X86 -> object
  double link_seconds = 0;     // nvJitLink -> cubin, or lld -> .so
};

// A CUDA C++ name expression and the symbol it names ("scale<float>" ->
// "_Z5scaleIfEvPT_").
struct LoweredName {
  std::string expression;
  std::string name;
  friend bool operator==(const LoweredName&, const LoweredName&) = default;
};

struct CompileOutput {
  ArtifactKind kind = ArtifactKind::kCubin;
  // entries: every kernel (CUDA) / exported function (CPU) of the module.
  std::string payload;  // cubin (ELF for the exact SM) or ELF shared object
  std::string ptx;      // CUDA only: the PTX that was linked
  std::vector<EntryInfo> entries;
  std::string log;      // warnings and info lines from LLVM / nvJitLink / lld
  StageTimings timings;
  std::vector<LoweredName> lowered_names;  // CUDA C++: per name expression, sorted by expression
};

// The first CUDA stage's result: PTX for one SM, before nvJitLink.
struct PtxOutput {
  std::string ptx;
  // Every kernel of the module: name and max_threads_per_block; the register,
  // shared and local fields stay -1 (only ptxas knows them).
  std::vector<EntryInfo> entries;
  std::string log;       // warnings from reading the IR and from LLVM
  StageTimings timings;  // parse, optimize and codegen; link_seconds is 0
  std::vector<LoweredName> lowered_names;  // CUDA C++: per name expression, sorted by expression
};

// CUDA's two stages made in one call (Compiler::CompileThroughCubin): what
// CompileToPtx gives, and what LinkCubin makes of that PTX.
struct StagedCubin {
  PtxOutput ptx;
  CompileOutput cubin;
};

// Toolchain facts, probed once. A probe that fails yields "probe-failed:<what>".
struct ToolchainInfo {
  std::string llvm_version;       // "19.1.7"
  std::string cuda_version;       // nvJitLink's version "13.0", or "none" (built without CUDA)
  std::string ptx_isa_version;    // the PTX ISA chosen for codegen, e.g. "8.5", or "none"
  std::string libdevice_digest;   // hex SHA-256 of libdevice.10.bc, or "none"/"probe-failed:libdevice"
  std::vector<std::string> cuda_sms;  // SMs supported by both LLVM and nvJitLink
  bool cuda_available = false;
  // Version of the nvJitLink (and so the ptxas) LinkCubin runs, spelled as
  // cuda_version ("13.0", "none", "probe-failed:nvjitlink"). Equal to
  // cuda_version today (both come from nvJitLinkVersion()); kept apart because
  // link-stage cache keys depend on this one only. (The default member
  // initializer keeps older aggregate initializations of this struct valid.)
  std::string nvjitlink_version = {};
  // glibc of the daemon's host ("2.36"): lld binds libm symbols at the
  // versions this libc makes default, so CPU artifacts depend on it.
  std::string libc_version = {};
  // SMs a PTX input can be linked for: what nvJitLink finalizes for (NVRTC's
  // list of the same toolkit, with the sm_XXa / sm_XXf variants), a superset
  // of cuda_sms, which LLVM IR (through LLVM's NVPTX backend) is held to.
  std::vector<std::string> ptx_sms = {};
  // libNVVM's version and the NVVM IR it reads ("2.0 (IR 2.0, debug 3.2)"),
  // or "none": NVVM IR inputs reach ptx_sms through it.
  std::string nvvm_version = {};
  // NVRTC's version ("13.0") or "none": CUDA C++ inputs reach ptx_sms through it.
  std::string nvrtc_version = {};
  // SHA-256 over the toolkit's include directory, which `#include <...>` of
  // CUDA C++ resolves to (every file's relative path, size and modification
  // time), or "none".
  std::string cuda_headers_digest = {};
  // SHA-256 of libcudadevrt.a (link_cudadevrt), or "none".
  std::string cudadevrt_digest = {};
  // SHA-256 of compiler-rt's builtins archive, which CPU kernels link
  // statically (half and bfloat conversions, 128-bit integer arithmetic), or
  // "none".
  std::string compiler_rt_builtins_digest = {};
  // hex SHA-256 over ROCm's device libraries (every .bc of the directory
  // found at build time or configured), "none" when there are none.
  std::string device_libs_digest = {};

  friend bool operator==(const ToolchainInfo&, const ToolchainInfo&) = default;
};

// Which options each stage reads is the catalogue's (common/compile_options.h:
// kStageCodegen for CompileToPtx and Compile, kStageLink for LinkCubin); a
// stage is handed only StageOptions() of what it was asked, and its cache key
// holds StageOptionsKey() of the same.

// A miss's compile started beside its digest (CallControl::compile_ahead):
// made by the compiler that started it, held by the caller until the
// compile call that takes it (CallControl::from_ahead). Dropped untaken,
// that compile is given up: it ends where it runs, unwanted. Must not
// outlive its compiler.
class CompileAhead {
 public:
  virtual ~CompileAhead() = default;
  std::chrono::steady_clock::time_point started;  // when its compile began
};

// Bounds one call. The in-process compiler checks `cancel` only before it
// starts (LLVM cannot be interrupted); the worker pool kills the worker that
// runs a call which is cancelled or passes its deadline.
struct CallControl {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  const CancelToken* cancel = nullptr;  // not owned; null: never cancelled
  // Not owned; may be null. Incremented once for each worker process this
  // call used up (crashed, hung, ran out of memory, was cancelled under it,
  // or retired after refusing the input): what the caller charges to the
  // client that sent the input (the daemon's failure budget).
  std::atomic<int>* workers_used_up = nullptr;
  // A miss's IR parsed once for its digest and its compile. CanonicalIrDigest
  // given `kept_parse` may keep the module it parsed for the compile of the
  // same IR, and sets *kept_parse to a token naming where (0: it kept none;
  // the worker pool keeps one only on a compile worker idle at the time). A
  // compile call given that token as `parse` goes there when it can, and
  // then skips the parse; its output is what a fresh parse gives.
  std::uint64_t* kept_parse = nullptr;
  std::uint64_t parse = 0;
  // A miss's compile begun with its digest, not after it. CanonicalIrDigest
  // given `compile_ahead` (the CompileThroughCubin input that a miss of
  // this IR sends next) and `ahead` may start that compile at once, beside
  // the digest, and set *ahead to it (null: it did not; the worker pool
  // does only on a compile worker idle at the time, and then keeps no
  // parse). A CompileThroughCubin given it as `from_ahead` is answered
  // from it when its input is the same, else compiled afresh (as when the
  // pool gave it up meanwhile: every compile worker held while another
  // compile waited for one).
  const CompileInput* compile_ahead = nullptr;
  std::shared_ptr<CompileAhead>* ahead = nullptr;
  CompileAhead* from_ahead = nullptr;
};

// Thread-safe: every method may be called from many threads at once.
// Besides the errors each method lists, any call may end CANCELLED (its
// CallControl was cancelled), DEADLINE_EXCEEDED (deadline or compile time
// limit passed), RESOURCE_EXHAUSTED (compile memory limit) or INTERNAL
// ("compiler crashed ...": the worker process running it died); the worker
// pool is what produces those.
class Compiler {
 public:
  virtual ~Compiler() = default;

  // The calls below without a CallControl: unbounded, never cancelled.
  [[nodiscard]] Expected<CompileOutput> Compile(const CompileInput& input) {
    return Compile(input, CallControl{});
  }
  [[nodiscard]] Expected<Digest> CanonicalIrDigest(std::string_view ir, const Target& target,
                                                   bool keep_debug_info) {
    return CanonicalIrDigest(ir, target, keep_debug_info, CallControl{});
  }
  [[nodiscard]] Expected<PtxOutput> CompileToPtx(const CompileInput& input) {
    return CompileToPtx(input, CallControl{});
  }
  [[nodiscard]] Expected<CompileOutput> LinkCubin(std::string_view ptx,
                                                  const std::vector<EntryInfo>& entries,
                                                  const Target& target,
                                                  const CompileOptions& options) {
    return LinkCubin(ptx, entries, target, options, CallControl{});
  }
  [[nodiscard]] Expected<StagedCubin> CompileThroughCubin(const CompileInput& input) {
    return CompileThroughCubin(input, CallControl{});
  }

  // Errors: INVALID_ARGUMENT for bad input (with line:column for text IR),
  // FAILED_PRECONDITION for CUDA targets when built without CUDA, INTERNAL for
  // toolchain failures. Never returns an empty payload on success.
  // CUDA: exactly CompileToPtx followed by LinkCubin.
  [[nodiscard]] virtual Expected<CompileOutput> Compile(const CompileInput& input,
                                                        const CallControl& control) = 0;

  // SHA-256 identity of `ir` as Compile would see it for `target`: two inputs
  // with equal digests (and equal target and options) compile to the same
  // artifact. The IR is read and refused exactly as by Compile (empty, NUL
  // byte, parse error with line:column, bad bitcode, verifier, triple or
  // datalayout contradicting the target; unsupported target), conformed to
  // the target (its triple and datalayout, no per-function CPU pins), then
  // stripped of what cannot change the artifact: the module identifier,
  // local value names (arguments, instructions, blocks) and, unless
  // `keep_debug_info`, all debug info (llvm.dbg.* metadata, debug intrinsics
  // and records, !dbg attachments, the "Debug Info Version", "Dwarf Version"
  // and "debug-info-assignment-tracking" flags) and source_filename. With
  // `keep_debug_info` (pass options.debug || options.lineinfo for CUDA,
  // options.debug for CPU) both are hashed, as Compile then emits them.
  // Text and bitcode of one module have one digest. Everything else counts,
  // conservatively (e.g. the nvvm-reflect-ftz flag, which Compile overrides).
  // Covers neither the target's SM/CPU/features nor the options: key on them
  // too. Costs one parse, one verify and one print (no optimization): about
  // 0.1-0.3 ms for the test kernels, 1-2% of their compile.
  [[nodiscard]] virtual Expected<Digest> CanonicalIrDigest(std::string_view ir,
                                                           const Target& target,
                                                           bool keep_debug_info,
                                                           const CallControl& control) = 0;

  // CUDA stage 1: everything Compile does up to and including PTX emission,
  // with the same checks and errors. Reads only the kStageCodegen options of
  // input.options. A CPU target is INVALID_ARGUMENT.
  [[nodiscard]] virtual Expected<PtxOutput> CompileToPtx(const CompileInput& input,
                                                         const CallControl& control) = 0;

  // CUDA stage 2: `ptx` -> cubin for target.sm through nvJitLink. Reads only
  // the kStageLink options of `options`. `entries` (as CompileToPtx gave
  // them) are returned with registers / shared / local bytes from ptxas's
  // info log; ptx is copied into the output; timings has link_seconds only.
  // Errors: INVALID_ARGUMENT for a CPU target, empty PTX, or PTX ptxas
  // rejects; FAILED_PRECONDITION when built without CUDA; INTERNAL otherwise.
  [[nodiscard]] virtual Expected<CompileOutput> LinkCubin(std::string_view ptx,
                                                          const std::vector<EntryInfo>& entries,
                                                          const Target& target,
                                                          const CompileOptions& options,
                                                          const CallControl& control) = 0;

  // Both CUDA stages in one call: CompileToPtx(input), then LinkCubin of its
  // PTX and entries with input.target and input.options; the same outputs
  // and errors as those two calls (an error of either stage is the call's).
  // Where a call has a cost of its own (a worker process's round trip),
  // one call instead of two saves it; the default makes the two calls.
  [[nodiscard]] virtual Expected<StagedCubin> CompileThroughCubin(const CompileInput& input,
                                                                  const CallControl& control) {
    StagedCubin out;
    QDC_ASSIGN_OR_RETURN(out.ptx, CompileToPtx(input, control));
    QDC_ASSIGN_OR_RETURN(out.cubin, LinkCubin(out.ptx.ptx, out.ptx.entries, input.target, input.options, control));
    return out;
  }

  [[nodiscard]] virtual const ToolchainInfo& toolchain() const = 0;
};

}  // namespace qdcache::compiler
