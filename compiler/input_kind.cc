#include "compiler/input_kind.h"

#include <array>

#include "common/compile_options.h"

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

bool AnyBytes(std::string_view) { return true; }

constexpr std::array kKinds = {
    InputKind{InputKindId::kLlvmText, "llvm-text", "text", AnyBytes, LlvmStages},
    InputKind{InputKindId::kLlvmBitcode, "llvm-bitcode", "bitcode", IsBitcode, LlvmStages},
};

constexpr std::array kStages = {
    StageSpec{StageId::kIrToPtx, "ptx", StageInput::kCanonicalInput, kStageCodegen, true},
    StageSpec{StageId::kPtxToCubin, "cubin", StageInput::kPreviousOutput, kStageLink, true},
    StageSpec{StageId::kIrToSharedObject, "shared-object", StageInput::kCanonicalInput, kStageCodegen, false},
};

}  // namespace

std::span<const InputKind> InputKinds() { return kKinds; }

const InputKind& InputKindOf(InputKindId id) { return kKinds[static_cast<std::size_t>(id)]; }

const InputKind& RecogniseInput(std::string_view bytes) {
  // Every kind but the catch-all (LLVM text, first in the table) first.
  for (std::size_t i = 1; i < kKinds.size(); ++i) {
    if (kKinds[i].recognises(bytes)) return kKinds[i];
  }
  return kKinds[0];
}

const StageSpec& StageOf(StageId id) { return kStages[static_cast<std::size_t>(id)]; }

bool IsBitcode(std::string_view bytes) {
  return StartsWith(bytes, std::string_view("BC\xC0\xDE", 4)) ||
         StartsWith(bytes, std::string_view("\xDE\xC0\x17\x0B", 4));
}

}  // namespace qdcache::compiler
