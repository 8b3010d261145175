// Input kinds as plug-ins: how the bytes a client sends are recognised, what
// of them the artifact key holds, and which compile stages they run for each
// target family (and so which artifact they yield: the family's). The engine
// walks these tables instead of asking "is this CUDA?"; a new input kind is a
// row here, its recogniser, the stages it runs, and the compiler code of any
// new stage. Today: LLVM IR as text and as bitcode (one pipeline), PTX,
// NVVM IR and CUDA C++.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/compile_options.h"
#include "common/expected.h"
#include "common/target.h"

namespace qdcache::compiler {

enum class InputKindId { kLlvmText, kLlvmBitcode, kPtx, kNvvm, kCuda };

// A step of a compile. Each is one Compiler call; a cached one also has a
// stage cache entry of its own, keyed by its input and the options it reads.
enum class StageId {
  kIrToPtx,           // Compiler::CompileToPtx: LLVM optimization and NVPTX codegen
  kPtxToCubin,        // Compiler::LinkCubin: nvJitLink
  kIrToSharedObject,  // Compiler::Compile for a CPU target: optimization, X86 codegen, lld
  kCudaToPtx,         // Compiler::CompileToPtx of a CUDA C++ program: NVRTC
  kIrToCodeObject,    // Compiler::Compile for an AMDGPU target: optimization, AMDGPU codegen, lld
};

// What a stage's cache key is made of besides its target and options.
enum class StageInput {
  kCanonicalInput,  // the digest of the kernel's canonical input (key component "ir")
  kPreviousOutput,  // the digest of the previous stage's output (component: that stage's name)
};

struct StageSpec {
  StageId id;
  std::string_view name;  // "ptx": the kind of its cache key, and what it outputs
  StageInput input;
  unsigned options;       // kStageCodegen, kStageLink, kStageSource: the options it reads
  bool cached;
  // What it takes as input, as an input kind: a later stage's input (the
  // previous output) is keyed in that kind's canonical form.
  InputKindId input_kind;
};

struct InputKind {
  InputKindId id;
  std::string_view name;      // "llvm-bitcode"
  std::string_view key_name;  // the artifact key's "input_kind" component
  // The artifact key's component that holds the digest of the canonical
  // input: "ir" (LLVM IR), "ptx". Stages that take this kind's canonical form
  // as input key it under the same name, so inputs of two kinds that meet at
  // one stage (LLVM IR's PTX, a PTX input) share its cache entries.
  std::string_view canonical_component;
  // Whether `bytes` are certainly this kind (RecogniseInput); null: the kind
  // is never guessed, only named by the client.
  bool (*recognises)(std::string_view bytes);
  // The stages it runs for targets of `family`, in order: each one's output
  // is the next one's input, the last one's is the artifact. Empty: this
  // kind cannot be compiled for that family.
  std::span<const StageId> (*stages)(TargetKind family);
  // The canonical form of `bytes`, made in the daemon (no compiler, no
  // worker) and both keyed and compiled: the text the first stage is given.
  // Null: a compiler makes the canonical digest (Compiler::CanonicalIrDigest).
  // INVALID_ARGUMENT for input the kind's checks refuse.
  Expected<std::string> (*canonical_text)(std::string_view bytes, bool keep_debug);
  // Whether the first stage compiles the canonical text rather than the
  // bytes as sent (a CUDA C++ program: its canonical encoding).
  bool compiles_canonical_text;
  // Key components that say what the canonical digest is made of, for
  // `explain` ("cuda.source", "cuda.header.util.cuh", ...): appended to
  // `out` as (name, value). Null: the digest alone says it.
  void (*describe)(std::string_view canonical_text, std::vector<std::pair<std::string, std::string>>& out);
  // A compiler's message about the canonical text as one about `bytes` (its
  // line numbers the client's; `sm` the target's). Null with canonical_text.
  std::string (*message_for_source)(std::string_view message, std::string_view bytes, bool keep_debug,
                                    std::string_view sm);
  // The CUDA SMs it reaches: those of the compilers its stages run.
  enum class Reach {
    kLlvmNvptx,  // LLVM's NVPTX backend and nvJitLink (ToolchainInfo::cuda_sms)
    kNvJitLink,  // nvJitLink alone (ToolchainInfo::ptx_sms)
    kLibNvvm,    // libNVVM and nvJitLink (ptx_sms, with libNVVM present)
    kNvrtc,      // NVRTC and nvJitLink (ptx_sms, with NVRTC present)
  } reach;
};

[[nodiscard]] std::span<const InputKind> InputKinds();
[[nodiscard]] const InputKind& InputKindOf(InputKindId id);
// The kind of bytes a client sent without naming one (LLVM IR by the wire's
// default): the first kind that recognises them, else LLVM text, which takes
// whatever no other kind does (its reader refuses the rest precisely). Kinds
// without a recogniser (PTX) are never guessed.
[[nodiscard]] const InputKind& RecogniseInput(std::string_view bytes);
[[nodiscard]] const StageSpec& StageOf(StageId id);

// `options` as `kind`'s stages for `family` read them: an input that only
// links (PTX) has the codegen-only options at their defaults and the others
// as the link stage takes them (opt_level 1..3 is nvJitLink's -O3), so
// spellings that cannot change its artifact cannot split its key.
[[nodiscard]] CompileOptions OptionsForKind(const InputKind& kind, TargetKind family, const CompileOptions& options);

// True if `bytes` start with LLVM bitcode's magic, raw or in the 0x0B17C0DE
// wrapper; never reads past `bytes`.
[[nodiscard]] bool IsBitcode(std::string_view bytes);

}  // namespace qdcache::compiler
