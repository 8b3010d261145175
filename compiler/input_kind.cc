#include "compiler/input_kind.h"

#include <array>

#include "common/compile_options.h"
#include "compiler/cuda_program.h"
#include "compiler/ptx_text.h"
#include "compiler/ptx_variables.h"

namespace qdcache::compiler {
namespace {

// LLVM IR, text or bitcode: through PTX to a cubin for CUDA, to a shared
// object for a CPU, to an HSA code object for AMDGPU.
std::span<const StageId> LlvmStages(TargetKind family) {
  static constexpr std::array kCuda = {StageId::kIrToPtx, StageId::kPtxToCubin};
  static constexpr std::array kCpu = {StageId::kIrToSharedObject};
  static constexpr std::array kAmdgpu = {StageId::kIrToCodeObject};
  switch (family) {
    case TargetKind::kCuda: return kCuda;
    case TargetKind::kCpu: return kCpu;
    case TargetKind::kAmdgpu: return kAmdgpu;
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

// NVVM IR, text or bitcode: libNVVM reads and judges it all; its digest is
// that of the bytes as sent (nothing is known to be neutral in them).
Expected<std::string> NvvmBytes(std::string_view bytes, bool) {
  if (bytes.empty()) return InvalidArgument("the NVVM IR is empty");
  return std::string(bytes);
}

// NVVM IR: through libNVVM to PTX, then the cubin stage.
std::span<const StageId> NvvmStages(TargetKind family) {
  static constexpr std::array kCuda = {StageId::kIrToPtx, StageId::kPtxToCubin};
  if (family == TargetKind::kCuda) return kCuda;
  return {};
}

// CUDA C++: through NVRTC to PTX, then the cubin stage.
std::span<const StageId> CudaStages(TargetKind family) {
  static constexpr std::array kCuda = {StageId::kCudaToPtx, StageId::kPtxToCubin};
  if (family == TargetKind::kCuda) return kCuda;
  return {};
}

using Reach = InputKind::Reach;
constexpr std::array kKinds = {
    InputKind{InputKindId::kLlvmText, "llvm-text", "text", "ir", AnyBytes, LlvmStages, nullptr, false, nullptr,
              nullptr, Reach::kLlvmNvptx},
    InputKind{InputKindId::kLlvmBitcode, "llvm-bitcode", "bitcode", "ir", IsBitcode, LlvmStages, nullptr, false,
              nullptr, nullptr, Reach::kLlvmNvptx},
    InputKind{InputKindId::kPtx, "ptx", "ptx", "ptx", nullptr, PtxStages, CanonicalSizedPtx, false, nullptr,
              PtxMessageForSource, Reach::kNvJitLink},
    InputKind{InputKindId::kNvvm, "nvvm", "nvvm", "nvvm", nullptr, NvvmStages, NvvmBytes, true, nullptr, nullptr,
              Reach::kLibNvvm},
    InputKind{InputKindId::kCuda, "cuda", "cuda", "cuda", nullptr, CudaStages, CanonicalCudaProgram, true,
              DescribeCudaProgram, nullptr, Reach::kNvrtc},
};

constexpr std::array kStages = {
    StageSpec{StageId::kIrToPtx, "ptx", StageInput::kCanonicalInput, kStageCodegen, true, InputKindId::kLlvmText},
    StageSpec{StageId::kPtxToCubin, "cubin", StageInput::kPreviousOutput, kStageLink, true, InputKindId::kPtx},
    StageSpec{StageId::kIrToSharedObject, "shared-object", StageInput::kCanonicalInput, kStageCodegen, false,
              InputKindId::kLlvmText},
    StageSpec{StageId::kCudaToPtx, "ptx", StageInput::kCanonicalInput, kStageCodegen | kStageSource, true,
              InputKindId::kCuda},
    StageSpec{StageId::kIrToCodeObject, "code-object", StageInput::kCanonicalInput, kStageCodegen, false,
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
  if (read == kStageLink) return StageOptions(options, kStageLink);
  // Options none of its stages read (NVRTC's, for every other kind) at their defaults.
  CompileOptions out = StageOptions(options, read);
  // NVRTC links the libdevice functions a program calls by itself.
  if (kind.reach == InputKind::Reach::kNvrtc) out.link_libdevice = false;
  // libNVVM, like nvJitLink, has -opt=0 and -opt=3 only; NVRTC has no level
  // at all (only nvJitLink reads it).
  if (kind.reach == InputKind::Reach::kLibNvvm || kind.reach == InputKind::Reach::kNvrtc) {
    out.opt_level = options.opt_level == 0 ? 0 : 3;
  }
  return out;
}

bool IsBitcode(std::string_view bytes) {
  return bytes.starts_with(std::string_view("BC\xC0\xDE", 4)) ||
         bytes.starts_with(std::string_view("\xDE\xC0\x17\x0B", 4));
}

}  // namespace qdcache::compiler
