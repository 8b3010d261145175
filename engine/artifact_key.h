// Artifact keys (L2), stage keys and the toolchain fingerprint. Keys are
// computed only by the daemon: SHA-256 over a versioned, length-prefixed
// encoding of named components. `explain` shows the same components, so what
// a user sees is exactly what was hashed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/digest.h"
#include "compiler/compiler.h"
#include "engine/descriptor.h"

namespace qdcache::engine {

// Bump when the encoding or the meaning of any component changes.
inline constexpr std::uint32_t kKeySchemaVersion = 2;

struct KeyComponent {
  std::string name;   // "ir", "target", "options.opt_level", "key_extras.FOO", ...
  std::string value;  // exactly what is hashed, human-readable
  friend bool operator==(const KeyComponent&, const KeyComponent&) = default;
};

// Hex SHA-256 over the daemon version, key schema and every toolchain fact.
[[nodiscard]] std::string ToolchainFingerprint(const compiler::ToolchainInfo& info,
                                               std::string_view daemon_version);

// Whether debug information is part of the IR's identity for this request.
[[nodiscard]] bool KeepsDebugInfo(const DecodedKernel& kernel);

// Every input of the artifact key. `canonical_ir` is the digest of the
// kernel's canonical input (neutral parts removed): the compiler's
// CanonicalIrDigest for LLVM IR, SHA-256 of the kind's canonical text for the
// others; it is keyed under the kind's canonical component ("ir", "ptx").
// `canonical_text`: the kind's canonical text, for kinds that describe it
// in components of their own (InputKind::describe: a CUDA C++ program's
// sources, headers and macros, so `explain` says which one changed).
[[nodiscard]] std::vector<KeyComponent> ArtifactKeyComponents(const DecodedKernel& kernel,
                                                              const Digest& canonical_ir,
                                                              std::string_view toolchain_fingerprint,
                                                              std::string_view canonical_text = {});

// SHA-256 over "qdcache-<kind>-key", the schema version and the components.
[[nodiscard]] Digest KeyFromComponents(std::string_view kind, const std::vector<KeyComponent>& components);


// A stage's cache key (compiler/input_kind.h): its input — for a first
// stage the kernel's canonical input under its kind's canonical component
// ("ir": LLVM IR, "ptx"), for a later one the previous stage's output (its
// canonical digest where it has one: PTX) — its target, exactly the options
// it reads (StageOptionsKey), and the toolchain. So a change that only
// affects linking (max registers) reuses the PTX, and an LLVM IR input and a
// PTX input that meet at the same PTX share the cubin. The PTX stage is keyed
// by the canonical input IR rather than the optimized IR: optimization is a
// function of that IR and the options, and keying before it lets a hit skip
// optimization too.
// The input component of `stage`'s key when `previous` ran before it (null:
// it is the first stage, and `canonical_input` of the kernel's `kind` is its
// input): `previous_output` in the canonical form of the stage's input kind
// (StageSpec::input_kind; PTX: CanonicalPtx with `keep_debug`), or its
// SHA-256 for a kind made canonical by a compiler. Nullopt when that output
// is not what the input kind accepts: the stage is not cached then.
[[nodiscard]] std::optional<KeyComponent> StageInputComponent(const compiler::StageSpec& stage,
                                                              const compiler::StageSpec* previous,
                                                              const compiler::InputKind& kind,
                                                              const Digest& canonical_input,
                                                              std::string_view previous_output, bool keep_debug);

[[nodiscard]] Digest StageKey(const compiler::StageSpec& stage, const KeyComponent& input,
                              const compiler::Target& target, const compiler::CompileOptions& options,
                              std::string_view toolchain_fingerprint);

}  // namespace qdcache::engine
