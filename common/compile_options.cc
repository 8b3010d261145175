#include "common/compile_options.h"

#include <array>
#include <charconv>

namespace qdcache {
namespace {

using O = CompileOptions;

constexpr std::uint32_t B(bool b) { return b ? 1 : 0; }

// The catalogue. Field numbers are those of qdcache.v1.CompileOptions.
constexpr std::array kOptions = {
    OptionSpec{"opt_level", 1, OptionType::kCount, 0, 3, 3, "--opt", kFamilyCuda | kFamilyCpu | kFamilyAmdgpu,
               kStageCodegen | kStageLink, "optimization level 0-3 (LLVM -O and codegen level; nvJitLink -O0 or -O3)",
               [](const O& o) { return static_cast<std::uint32_t>(o.opt_level); },
               [](O& o, std::uint32_t v) { o.opt_level = static_cast<int>(v); },
               [](std::uint32_t v) -> std::uint32_t { return v == 0 ? 0 : 3; }, "opt"},
    OptionSpec{"fast_math", 2, OptionType::kBool, 0, 1, 0, "--fast-math", kFamilyCuda | kFamilyCpu | kFamilyAmdgpu,
               kStageCodegen | kStageLink, "unsafe floating-point math (no NaN/Inf, reassociation; f32 flush-to-zero on GPUs)",
               [](const O& o) { return B(o.fast_math); }, [](O& o, std::uint32_t v) { o.fast_math = v != 0; }},
    OptionSpec{"fmad", 3, OptionType::kBool, 0, 1, 1, "--no-fmad", kFamilyCuda | kFamilyCpu | kFamilyAmdgpu,
               kStageCodegen | kStageLink,
               "fused multiply-add contraction (on by default; --no-fmad turns it off in LLVM and in ptxas)",
               [](const O& o) { return B(o.fmad); }, [](O& o, std::uint32_t v) { o.fmad = v != 0; }},
    OptionSpec{"debug", 4, OptionType::kBool, 0, 1, 0, "--debug", kFamilyCuda | kFamilyCpu | kFamilyAmdgpu,
               kStageCodegen | kStageLink, "keep and emit debug info (-g)",
               [](const O& o) { return B(o.debug); }, [](O& o, std::uint32_t v) { o.debug = v != 0; }},
    OptionSpec{"lineinfo", 5, OptionType::kBool, 0, 1, 0, "--lineinfo", kFamilyCuda, kStageCodegen | kStageLink,
               "CUDA: line information in the cubin (-lineinfo)",
               [](const O& o) { return B(o.lineinfo); }, [](O& o, std::uint32_t v) { o.lineinfo = v != 0; }},
    OptionSpec{"max_registers", 6, OptionType::kCount, 0, 255, 0, "--max-registers", kFamilyCuda, kStageLink,
               "CUDA: registers per thread at most, 0-255 (0: no limit; -maxrregcount)",
               [](const O& o) { return o.max_registers; }, [](O& o, std::uint32_t v) { o.max_registers = v; }},
    OptionSpec{"link_libdevice", 7, OptionType::kBool, 0, 1, 0, "--link-libdevice", kFamilyCuda, kStageCodegen,
               "CUDA: link the libdevice functions the kernel calls (__nv_*)",
               [](const O& o) { return B(o.link_libdevice); }, [](O& o, std::uint32_t v) { o.link_libdevice = v != 0; }},
    OptionSpec{"suppress_debug_info", 8, OptionType::kBool, 0, 1, 0, "--suppress-debug-info", kFamilyCuda, kStageLink,
               "CUDA: no debug sections in the cubin from the PTX's debug directives (ptxas --suppress-debug-info)",
               [](const O& o) { return B(o.suppress_debug_info); },
               [](O& o, std::uint32_t v) { o.suppress_debug_info = v != 0; }, nullptr, {},
               /*keyed_at_default=*/false},
    // CUDA C++ (NVRTC). Added after the first key schema: keyed only when set.
    OptionSpec{"cuda_std", 9, OptionType::kCount, 0, 20, 0, "--std", kFamilyCuda, kStageSource,
               "CUDA C++: the C++ standard, 11, 14, 17 or 20 (0: NVRTC's default, C++17)",
               [](const O& o) { return o.cuda_std; }, [](O& o, std::uint32_t v) { o.cuda_std = v; }, nullptr, {},
               /*keyed_at_default=*/false,
               [](std::uint32_t v) { return v == 0 || v == 11 || v == 14 || v == 17 || v == 20; },
               "0, 11, 14, 17 or 20"},
    OptionSpec{"extra_device_vectorization", 10, OptionType::kBool, 0, 1, 0, "--extra-device-vectorization",
               kFamilyCuda, kStageSource, "CUDA C++: more aggressive vectorization in NVRTC",
               [](const O& o) { return B(o.extra_device_vectorization); },
               [](O& o, std::uint32_t v) { o.extra_device_vectorization = v != 0; }, nullptr, {},
               /*keyed_at_default=*/false},
    OptionSpec{"default_device", 11, OptionType::kBool, 0, 1, 0, "--default-device", kFamilyCuda, kStageSource,
               "CUDA C++: functions and variables without a memory space are __device__",
               [](const O& o) { return B(o.default_device); },
               [](O& o, std::uint32_t v) { o.default_device = v != 0; }, nullptr, {},
               /*keyed_at_default=*/false},
    OptionSpec{"relocatable_device_code", 12, OptionType::kBool, 0, 1, 0, "--relocatable-device-code", kFamilyCuda,
               kStageSource, "CUDA C++: relocatable device code (-rdc=true; needed for device runtime calls)",
               [](const O& o) { return B(o.relocatable_device_code); },
               [](O& o, std::uint32_t v) { o.relocatable_device_code = v != 0; }, nullptr, {},
               /*keyed_at_default=*/false},
    OptionSpec{"link_cudadevrt", 13, OptionType::kBool, 0, 1, 0, "--link-cudadevrt", kFamilyCuda, kStageLink,
               "CUDA: link the device runtime, libcudadevrt (dynamic parallelism, cudaGraphSetConditional)",
               [](const O& o) { return B(o.link_cudadevrt); },
               [](O& o, std::uint32_t v) { o.link_cudadevrt = v != 0; }, nullptr, {},
               /*keyed_at_default=*/false},
    // AMDGPU. Added after the first key schema: keyed only when set.
    OptionSpec{"link_device_libs", 14, OptionType::kBool, 0, 1, 0, "--link-device-libs", kFamilyAmdgpu,
               kStageCodegen,
               "AMDGPU: link the ROCm device-library functions the kernel calls (__ocml_*, __ockl_*)",
               [](const O& o) { return B(o.link_device_libs); },
               [](O& o, std::uint32_t v) { o.link_device_libs = v != 0; }, nullptr, {},
               /*keyed_at_default=*/false},
    OptionSpec{"code_object_version", 15, OptionType::kCount, 0, 6, 0, "--code-object-version", kFamilyAmdgpu,
               kStageCodegen, "AMDGPU: HSA code object version 4, 5 or 6 (0: LLVM's default, 5)",
               [](const O& o) { return o.code_object_version; },
               [](O& o, std::uint32_t v) { o.code_object_version = v; }, nullptr, {},
               /*keyed_at_default=*/false, [](std::uint32_t v) { return v == 0 || (v >= 4 && v <= 6); },
               "0, 4, 5 or 6"},
    OptionSpec{"wavefront_size", 16, OptionType::kCount, 0, 64, 0, "--wavefront-size", kFamilyAmdgpu,
               kStageCodegen, "AMDGPU: wavefront size 32 or 64 (0: the processor's; gfx10 and later take either)",
               [](const O& o) { return o.wavefront_size; }, [](O& o, std::uint32_t v) { o.wavefront_size = v; },
               nullptr, {}, /*keyed_at_default=*/false,
               [](std::uint32_t v) { return v == 0 || v == 32 || v == 64; }, "0, 32 or 64"},
};

}  // namespace

std::span<const OptionSpec> OptionCatalogue() { return kOptions; }

const OptionSpec* FindOption(std::string_view name) {
  std::string underscored(name);
  for (char& c : underscored) c = c == '-' ? '_' : c;
  for (const OptionSpec& spec : kOptions) {
    if (spec.name == underscored || (!spec.alias.empty() && spec.alias == name)) return &spec;
  }
  return nullptr;
}

std::string OptionNames() {
  std::string names;
  for (const OptionSpec& spec : kOptions) names += (names.empty() ? "" : ", ") + std::string(spec.name);
  return names;
}

const OptionSpec* FindOptionByField(int field) {
  for (const OptionSpec& spec : kOptions) {
    if (spec.field == field) return &spec;
  }
  return nullptr;
}

Status CheckOptionValue(const OptionSpec& spec, std::uint64_t value) {
  if (value >= spec.min && value <= spec.max &&
      (spec.allowed == nullptr || spec.allowed(static_cast<std::uint32_t>(value)))) {
    return Status::Ok();
  }
  if (spec.allowed != nullptr) {
    return InvalidArgument(std::string(spec.name) + ": " + std::to_string(value) + " is not one of " +
                           std::string(spec.allowed_text));
  }
  if (spec.type == OptionType::kBool) {
    return InvalidArgument(std::string(spec.name) + ": " + std::to_string(value) + " is not a boolean (0 or 1)");
  }
  return InvalidArgument(std::string(spec.name) + ": " + std::to_string(value) + " is out of range " +
                         std::to_string(spec.min) + ".." + std::to_string(spec.max));
}

Status SetOptionText(CompileOptions& options, const OptionSpec& spec, std::string_view text) {
  std::uint64_t value = 0;
  if (spec.type == OptionType::kBool && (text == "true" || text == "on")) {
    value = 1;
  } else if (spec.type == OptionType::kBool && (text == "false" || text == "off")) {
    value = 0;
  } else {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
      return InvalidArgument(std::string(spec.name) + ": \"" + std::string(text) + "\" is not " +
                             (spec.type == OptionType::kBool ? "true, false, 1 or 0" : "a whole number"));
    }
  }
  QDC_RETURN_IF_ERROR(CheckOptionValue(spec, value));
  spec.set(options, static_cast<std::uint32_t>(value));
  return Status::Ok();
}

std::string OptionValueText(const OptionSpec& spec, std::uint32_t value) {
  if (spec.type == OptionType::kBool) return value != 0 ? "1" : "0";
  return std::to_string(value);
}

CompileOptions ForFamily(CompileOptions options, unsigned family) {
  for (const OptionSpec& spec : kOptions) {
    if ((spec.families & family) == 0) spec.set(options, spec.default_value);
  }
  return options;
}

CompileOptions StageOptions(const CompileOptions& options, unsigned stage) {
  CompileOptions out;
  for (const OptionSpec& spec : kOptions) {
    if ((spec.stages & stage) == 0) continue;
    const std::uint32_t value = spec.get(options);
    spec.set(out, stage == kStageLink && spec.for_link != nullptr ? spec.for_link(value) : value);
  }
  return out;
}

bool KeysOption(const OptionSpec& spec, std::uint32_t value) {
  return spec.keyed_at_default || value != spec.default_value;
}

std::string StageOptionsKey(const CompileOptions& options, unsigned stage) {
  const CompileOptions given = StageOptions(options, stage);
  std::string key;
  for (const OptionSpec& spec : kOptions) {
    if ((spec.stages & stage) == 0 || !KeysOption(spec, spec.get(given))) continue;
    if (!key.empty()) key += ' ';
    key += std::string(spec.name) + "=" + OptionValueText(spec, spec.get(given));
  }
  return key;
}

}  // namespace qdcache
