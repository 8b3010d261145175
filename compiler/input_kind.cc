#include "compiler/input_kind.h"

#include <array>

#include "common/compile_options.h"
#include "compiler/ptx_text.h"

namespace qdcache::compiler {
namespace {

bool StartsWith(std::string_view bytes, std::string_view magic) { return bytes.substr(0, magic.size()) == magic; }

// LLVM IR, text or bitcode: through PTX to a cubin for CUDA, to a shared
// object for a CPU.
std::span<const StageId> LlvmStages(TargetKind family) {
  static constexpr std::array kCuda = {StageId::kIrToPtx, StageId::kPtxToCubin};
  static constexpr std::array kCpu = {StageId::kIrToSharedObject};
  switch (family) {
    case TargetKind::kCuda: return kCuda;
    case TargetKind::kCpu: return kCpu;
  }
  return {};
}

// PTX: linked to a cubin; there is no path from PTX to a CPU.
std::span<const StageId> PtxStages(TargetKind family) {
  static constexpr std::array kCuda = {StageId::kPtxToCubin};
  if (family == TargetKind::kCuda) return kCuda;
  return {};
}

bool AnyBytes(std::string_view) { return true; }

constexpr std::array kKinds = {
    InputKind{InputKindId::kLlvmText, "llvm-text", "text", "ir", AnyBytes, LlvmStages, nullptr, nullptr},
    InputKind{InputKindId::kLlvmBitcode, "llvm-bitcode", "bitcode", "ir", IsBitcode, LlvmStages, nullptr, nullptr},
    InputKind{InputKindId::kPtx, "ptx", "ptx", "ptx", nullptr, PtxStages, CanonicalPtx,
              PtxMessageForSource},
};

constexpr std::array kStages = {
    StageSpec{StageId::kIrToPtx, "ptx", StageInput::kCanonicalInput, kStageCodegen, true, InputKindId::kLlvmText},
    StageSpec{StageId::kPtxToCubin, "cubin", StageInput::kPreviousOutput, kStageLink, true, InputKindId::kPtx},
    StageSpec{StageId::kIrToSharedObject, "shared-object", StageInput::kCanonicalInput, kStageCodegen, false,
              InputKindId::kLlvmText},
};

}  // namespace

std::span<const InputKind> InputKinds() { return kKinds; }

const InputKind& InputKindOf(InputKindId id) { return kKinds[static_cast<std::size_t>(id)]; }

const InputKind& RecogniseInput(std::string_view bytes) {
  // Every kind but the catch-all (LLVM text, first in the table) first.
  for (std::size_t i = 1; i < kKinds.size(); ++i) {
    if (kKinds[i].recognises != nullptr && kKinds[i].recognises(bytes)) return kKinds[i];
  }
  return kKinds[0];
}

const StageSpec& StageOf(StageId id) { return kStages[static_cast<std::size_t>(id)]; }

CompileOptions OptionsForKind(const InputKind& kind, TargetKind family, const CompileOptions& options) {
  unsigned read = 0;
  for (const StageId id : kind.stages(family)) read |= StageOf(id).options;
  // Only a kind that links and nothing else reads options as the link stage does.
  return read == kStageLink ? StageOptions(options, kStageLink) : options;
}

bool IsBitcode(std::string_view bytes) {
  return StartsWith(bytes, std::string_view("BC\xC0\xDE", 4)) ||
         StartsWith(bytes, std::string_view("\xDE\xC0\x17\x0B", 4));
}

}  // namespace qdcache::compiler
