// Artifact keys (L2) and the toolchain fingerprint. Keys are computed only by
// the daemon: SHA-256 over a versioned, length-prefixed encoding of every
// input that can change the artifact.
#pragma once

#include <cstdint>
#include <string>

#include "common/digest.h"
#include "compiler/compiler.h"
#include "daemon/descriptor.h"

namespace qdcache::daemon {

// Bump when the encoding below or the meaning of any component changes.
inline constexpr std::uint32_t kKeySchemaVersion = 1;

// Hex SHA-256 over the daemon version, key schema and every toolchain fact.
[[nodiscard]] std::string ToolchainFingerprint(const compiler::ToolchainInfo& info,
                                               std::string_view daemon_version);

[[nodiscard]] Digest ComputeArtifactKey(const DecodedKernel& kernel,
                                        std::string_view toolchain_fingerprint);

}  // namespace qdcache::daemon
