// Artifact keys (L2), stage keys and the toolchain fingerprint. Keys are
// computed only by the daemon: SHA-256 over a versioned, length-prefixed
// encoding of named components. `explain` shows the same components, so what
// a user sees is exactly what was hashed.
#pragma once

#include <cstdint>
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

// Every input of the artifact key. `canonical_ir` is the compiler's
// CanonicalIrDigest of the kernel's IR (neutral parts removed).
[[nodiscard]] std::vector<KeyComponent> ArtifactKeyComponents(const DecodedKernel& kernel,
                                                              const Digest& canonical_ir,
                                                              std::string_view toolchain_fingerprint);

// SHA-256 over "qdcache-<kind>-key", the schema version and the components.
[[nodiscard]] Digest KeyFromComponents(std::string_view kind, const std::vector<KeyComponent>& components);


// A stage's cache key (compiler/input_kind.h): its input — the canonical
// input's digest for a first stage, or `previous`'s output for a later one —
// its target, exactly the options it reads (StageOptionsKey), and the
// toolchain. So a change that only affects linking (max registers) reuses the
// PTX. The PTX stage is keyed by the canonical input IR rather than the
// optimized IR: optimization is a function of that IR and the options, and
// keying before it lets a hit skip optimization too.
[[nodiscard]] Digest StageKey(const compiler::StageSpec& stage, const Digest& canonical_input,
                              const compiler::StageSpec* previous, std::string_view previous_output,
                              const compiler::Target& target, const compiler::CompileOptions& options,
                              std::string_view toolchain_fingerprint);

}  // namespace qdcache::engine
