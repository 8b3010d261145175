// Input kinds as plug-ins: how the bytes a client sends are recognised, what
// of them the artifact key holds, and which compile stages they run for each
// target family (and so which artifact they yield: the family's). The engine
// walks these tables instead of asking "is this CUDA?"; a new input kind is a
// row here, its recogniser, the stages it runs, and the compiler code of any
// new stage. Today: LLVM IR as text and as bitcode (one pipeline).
#pragma once

#include <span>
#include <string_view>

#include "common/target.h"

namespace qdcache::compiler {

enum class InputKindId { kLlvmText, kLlvmBitcode };

// A step of a compile. Each is one Compiler call; a cached one also has a
// stage cache entry of its own, keyed by its input and the options it reads.
enum class StageId {
  kIrToPtx,           // Compiler::CompileToPtx: LLVM optimization and NVPTX codegen
  kPtxToCubin,        // Compiler::LinkCubin: nvJitLink
  kIrToSharedObject,  // Compiler::Compile for a CPU target: optimization, X86 codegen, lld
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
  unsigned options;       // kStageCodegen or kStageLink: the options it reads
  bool cached;
};

struct InputKind {
  InputKindId id;
  std::string_view name;      // "llvm-bitcode"
  std::string_view key_name;  // the artifact key's "input_kind" component
  bool (*recognises)(std::string_view bytes);
  // The stages it runs for targets of `family`, in order: each one's output
  // is the next one's input, the last one's is the artifact. Empty: this
  // kind cannot be compiled for that family.
  std::span<const StageId> (*stages)(TargetKind family);
};

[[nodiscard]] std::span<const InputKind> InputKinds();
[[nodiscard]] const InputKind& InputKindOf(InputKindId id);
// The first kind (in InputKinds() order) that recognises `bytes`; LLVM text,
// the last, takes whatever no other kind does (its reader refuses the rest
// precisely).
[[nodiscard]] const InputKind& RecogniseInput(std::string_view bytes);
[[nodiscard]] const StageSpec& StageOf(StageId id);

// True if `bytes` start with LLVM bitcode's magic, raw or in the 0x0B17C0DE
// wrapper; never reads past `bytes`.
[[nodiscard]] bool IsBitcode(std::string_view bytes);

}  // namespace qdcache::compiler
