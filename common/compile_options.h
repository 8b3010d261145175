// Compile options: one closed catalogue that every spelling of an option is
// made from. Each row gives an option its name (the key component
// "options.<name>", the warm manifest key, the C ABI and Python name), its
// field in qdcache.v1.CompileOptions, its range and default, its CLI flag,
// the target families and the compile stages that read it. The descriptor
// decoder, the artifact and stage keys, the CLI, the warm manifest, the C
// ABI, Python and the worker protocol all walk this table; none of them
// names an option itself.
//
// Adding an option: its field in proto/qdcache/v1/qdcache.proto, a field in
// CompileOptions below, one row in compile_options.cc, the code that uses
// it, and a line in docs/protocol.md. tests/unit/common checks that every
// field of the wire message has a row and reaches the key.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/status.h"

namespace qdcache {

struct CompileOptions {
  int opt_level = 3;           // 0..3, new pass manager O0..O3 and codegen level
  bool fast_math = false;      // unsafe-fp-math, no-nans/infs, nsz, arcp, contract=fast; ftz on CUDA
  bool fmad = true;            // allow fused multiply-add contraction (FPOpFusion::Standard)
  bool debug = false;          // keep/emit debug info (-g)
  bool lineinfo = false;       // CUDA: -lineinfo for nvJitLink
  std::uint32_t max_registers = 0;  // CUDA: nvJitLink -maxrregcount; 0 = no limit
  bool link_libdevice = false;      // CUDA: link needed functions of libdevice.10.bc
  bool suppress_debug_info = false; // CUDA: ptxas --suppress-debug-info (no debug sections from .loc)
  std::uint32_t cuda_std = 0;       // CUDA C++: -std=c++NN; 0 = NVRTC's default
  bool extra_device_vectorization = false;  // CUDA C++: -extra-device-vectorization
  bool default_device = false;      // CUDA C++: -default-device
  bool relocatable_device_code = false;     // CUDA C++: -rdc=true
  bool link_cudadevrt = false;      // CUDA: link libcudadevrt (device runtime calls) with nvJitLink
  bool link_device_libs = false;    // AMDGPU: link needed ROCm device-library functions (ocml, ockl)
  std::uint32_t code_object_version = 0;  // AMDGPU: 4, 5, 6; 0 = LLVM's default (5)
  std::uint32_t wavefront_size = 0;       // AMDGPU: 32, 64; 0 = the processor's

  friend bool operator==(const CompileOptions&, const CompileOptions&) = default;
};

enum class OptionType {
  kBool,   // 0 or 1; wire bool; CLI flag without a value
  kCount,  // an unsigned number in [min, max]; wire uint32; CLI flag with a value
};

// Target families, as bits (OptionSpec::families).
inline constexpr unsigned kFamilyCuda = 1;
inline constexpr unsigned kFamilyCpu = 2;
inline constexpr unsigned kFamilyAmdgpu = 4;

// Compile stages, as bits (OptionSpec::stages): what a stage's cache key
// holds and what the stage is given (StageOptions).
inline constexpr unsigned kStageCodegen = 1;  // IR -> PTX, or IR -> shared object
inline constexpr unsigned kStageLink = 2;     // PTX -> cubin (nvJitLink)
inline constexpr unsigned kStageSource = 4;   // CUDA C++ -> PTX (NVRTC): read by no other kind's stages

struct OptionSpec {
  std::string_view name;  // "max_registers"
  int field;              // field number in qdcache.v1.CompileOptions
  OptionType type;
  std::uint32_t min = 0, max = 1;
  std::uint32_t default_value = 0;
  // The CLI flag: "--max-registers" (a count takes a value), "--fast-math"
  // (a bool whose default is off sets it), "--no-fmad" (one whose default is
  // on clears it).
  std::string_view flag;
  unsigned families = kFamilyCuda | kFamilyCpu | kFamilyAmdgpu;  // others collapse it to its default
  unsigned stages = kStageCodegen;
  std::string_view help;  // one line
  std::uint32_t (*get)(const CompileOptions&);
  void (*set)(CompileOptions&, std::uint32_t);
  // What the link stage is given of the value (nvJitLink has -O0 and -O3
  // only); null: the value itself.
  std::uint32_t (*for_link)(std::uint32_t) = nullptr;
  // A shorter name older interfaces took and still take ("opt").
  std::string_view alias = {};
  // Whether keys write the option out at its default too. Options added
  // after the first key schema are keyed only when set, so adding one keeps
  // every existing key (and cache entry).
  bool keyed_at_default = true;
  // For a count, the values in [min, max] it takes, when not all of them
  // are ("0, 11, 14, 17 or 20"); null: every one.
  bool (*allowed)(std::uint32_t) = nullptr;
  std::string_view allowed_text = {};
};

// Every option, in the order keys and listings show them.
[[nodiscard]] std::span<const OptionSpec> OptionCatalogue();
// The row of `name`: the option's name, also spelt with '-' for '_'
// ("max-registers"), or its alias. Null for any other.
[[nodiscard]] const OptionSpec* FindOption(std::string_view name);
// "opt_level, fast_math, ...": for messages about an unknown name.
[[nodiscard]] std::string OptionNames();
// The row of wire field `field`, or null.
[[nodiscard]] const OptionSpec* FindOptionByField(int field);

// INVALID_ARGUMENT naming the option and its range when `value` is outside
// it (a bool takes 0 or 1).
[[nodiscard]] Status CheckOptionValue(const OptionSpec& spec, std::uint64_t value);
// Parses `text` for `spec` ("3"; a bool also "true"/"false"/"on"/"off") and
// checks it. INVALID_ARGUMENT naming the option.
[[nodiscard]] Status SetOptionText(CompileOptions& options, const OptionSpec& spec, std::string_view text);
// "1"/"0" for a bool, the decimal number for a count: a key component value.
[[nodiscard]] std::string OptionValueText(const OptionSpec& spec, std::uint32_t value);

// `options` with every option that `family` (kFamilyCuda...) does not read
// at its default: such options never split keys.
[[nodiscard]] CompileOptions ForFamily(CompileOptions options, unsigned family);
// What `stage` (kStageCodegen / kStageLink) is given: the options it reads,
// as it reads them, and the rest at their defaults. A stage is handed only
// this copy, so it cannot read a field its cache key leaves out.
[[nodiscard]] CompileOptions StageOptions(const CompileOptions& options, unsigned stage);
// "opt_level=3 fast_math=0 ..." over the options `stage` reads: the options
// part of the stage's cache key (options not keyed_at_default only when set).
[[nodiscard]] std::string StageOptionsKey(const CompileOptions& options, unsigned stage);
// Whether a key holds `spec` at `value`: always, or for an option that is
// not keyed_at_default, when it is not at its default.
[[nodiscard]] bool KeysOption(const OptionSpec& spec, std::uint32_t value);

}  // namespace qdcache
