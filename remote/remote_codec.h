// What the remote tier stores in Redis: key names and self-checking values.
//
// Keys (PREFIX from the URL, default "qdcache:"; "v1" is the key layout
// version, bumped when the layout changes so old and new daemons never read
// each other's values):
//   PREFIX v1:a:<hex artifact key>                       an artifact record
//   PREFIX v1:l:<hex SHA-256 of the encoded alias key>   a fast-key alias
//   PREFIX v1:lease:<hex artifact key>                   a compile lease: the
//       owner's id (HOST:PID:RANDOM), expiring by itself (fleet single-flight)
//
// Value = envelope + zstd frame:
//   offset  size  field
//   0       4     magic "QDRM"
//   4       1     envelope version: 1 unsigned, 2 signed
//   5       1     kind: 1 artifact, 2 alias
//   6       2     zero
//   8       8     size of the uncompressed body, little-endian
//   16      32    SHA-256(uncompressed body)
//   48      n     zstd frame of the body                       (version 1)
// A signed value (version 2) carries its signature before the frame:
//   48      32    the writer's Ed25519 public key
//   80      64    Ed25519 signature over signing::SignedMessage (claim.h)
//                 of the entry: for an artifact, its key and record; for an
//                 alias, the alias (tenant, namespace, target, fast key) and
//                 what it names
//   144     n     zstd frame of the body
// Artifact body: the store's record encoding (store/record_codec.h, itself
// digest-checked). Alias body: the encoded alias key (tenant, ns, target,
// fast_key; store/record_codec.h) followed by the artifact key as a u32
// big-endian length and its bytes, so a value written for another alias (a
// hash collision, a foreign writer) is recognised, then the alias's manifest
// (store::AliasValue; nothing when it has none, which is the layout daemons
// before manifests wrote and read).
//
// Every decode checks all of it (magic, version, kind, size bound, frame
// size, digest, the record or alias it holds against the one asked for, the
// payload digest) and answers DataLoss with the reason on any mismatch: the
// caller treats that as a miss. With a SignaturePolicy that checks
// (trusted keys), the signature is checked against the entry asked for,
// before the rest, and a value the policy refuses (unsigned where
// signatures are required, signed by a key not trusted, or a signature that
// does not cover this key and content: a value copied under another key)
// answers UNAUTHENTICATED: a miss too, counted apart. Functions are pure and
// thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "signing/signing_key.h"
#include "signing/trusted_keys.h"
#include "store/record.h"

namespace qdcache::remote {

inline constexpr std::string_view kValueMagic = "QDRM";
inline constexpr std::uint8_t kValueVersion = 1;        // unsigned
inline constexpr std::uint8_t kSignedValueVersion = 2;  // signed
inline constexpr std::size_t kValueHeaderSize = 48;

[[nodiscard]] std::string ArtifactRedisKey(std::string_view prefix, const store::ArtifactKey& key);
[[nodiscard]] std::string AliasRedisKey(std::string_view prefix, const store::AliasKey& alias);
[[nodiscard]] std::string LeaseRedisKey(std::string_view prefix, const store::ArtifactKey& key);

// `record` must be valid for the store (store::ValidateForPut has filled its
// payload digest). Signed by `signer` when it is not null.
[[nodiscard]] std::string EncodeArtifactValue(const store::ArtifactRecord& record,
                                              const signing::SigningKey* signer = nullptr);
// Decodes a value read under the key of `key`; bodies larger than
// `max_body_bytes` are refused before they are decompressed.
[[nodiscard]] Status DecodeArtifactValue(std::string_view value, const store::ArtifactKey& key,
                                         std::uint64_t max_body_bytes, store::ArtifactRecord* out,
                                         const signing::SignaturePolicy& policy = {});

[[nodiscard]] std::string EncodeAliasValue(const store::AliasKey& alias, const store::AliasValue& value,
                                           const signing::SigningKey* signer = nullptr);
[[nodiscard]] Status DecodeAliasValue(std::string_view value, const store::AliasKey& alias,
                                      store::AliasValue* out, const signing::SignaturePolicy& policy = {});
// Without a manifest / the artifact key alone.
[[nodiscard]] std::string EncodeAliasValue(const store::AliasKey& alias, const store::ArtifactKey& key);
[[nodiscard]] Status DecodeAliasValue(std::string_view value, const store::AliasKey& alias,
                                      store::ArtifactKey* out);

}  // namespace qdcache::remote
