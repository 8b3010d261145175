// What a signature over a shared cache entry covers: the canonical message
// built from an entry's identity and content. One message layout for the
// remote tier's values and for bundle entries, so an entry signed once can be
// verified wherever it travels.
//
// message := "qdcache-signature-v1" NUL kind-letter field*
//   field := u32 little-endian length | bytes
// Artifact ('A'): artifact key, kind (u32 LE), target, toolchain, payload
//   digest, SHA-256(ptx), SHA-256(metadata), SHA-256(compile log).
// Alias ('L'): tenant, namespace, target, fast key, artifact key,
//   SHA-256(manifest).
// The key an entry is stored under is part of what is signed, so a signature
// cannot be replayed onto another key. The payload is covered through its
// digest, which every reader checks against the payload. Not covered: the
// compile time and creation time (informational).
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace qdcache::signing {

struct ArtifactClaim {
  std::string_view key;  // the artifact key the entry is stored under
  std::uint32_t kind = 0;
  std::string_view target;
  std::string_view toolchain;
  std::string_view payload_digest;
  std::string_view ptx;
  std::string_view metadata;
  std::string_view compile_log;
};

struct AliasClaim {
  std::string_view tenant;
  std::string_view ns;
  std::string_view target;
  std::string_view fast_key;
  std::string_view artifact_key;  // what the alias names
  std::string_view manifest;
};

[[nodiscard]] std::string SignedMessage(const ArtifactClaim& claim);
[[nodiscard]] std::string SignedMessage(const AliasClaim& claim);

}  // namespace qdcache::signing
