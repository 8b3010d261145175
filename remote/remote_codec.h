// What the remote tier stores in Redis: key names and self-checking values.
//
// Keys (PREFIX from the URL, default "qdcache:"; "v1" is the key layout
// version, bumped when the layout changes so old and new daemons never read
// each other's values):
//   PREFIX v1:a:<hex artifact key>                       an artifact record
//   PREFIX v1:l:<hex SHA-256 of the encoded alias key>   a fast-key alias
//
// Value = envelope + zstd frame:
//   offset  size  field
//   0       4     magic "QDRM"
//   4       1     envelope version (1)
//   5       1     kind: 1 artifact, 2 alias
//   6       2     zero
//   8       8     size of the uncompressed body, little-endian
//   16      32    SHA-256(uncompressed body)
//   48      n     zstd frame of the body
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
// caller treats that as a miss. Functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "store/record.h"

namespace qdcache::remote {

inline constexpr std::string_view kValueMagic = "QDRM";
inline constexpr std::uint8_t kValueVersion = 1;
inline constexpr std::size_t kValueHeaderSize = 48;

[[nodiscard]] std::string ArtifactRedisKey(std::string_view prefix, const store::ArtifactKey& key);
[[nodiscard]] std::string AliasRedisKey(std::string_view prefix, const store::AliasKey& alias);

// `record` must be valid for the store (store::ValidateForPut has filled its
// payload digest).
[[nodiscard]] std::string EncodeArtifactValue(const store::ArtifactRecord& record);
// Decodes a value read under the key of `key`; bodies larger than
// `max_body_bytes` are refused before they are decompressed.
[[nodiscard]] Status DecodeArtifactValue(std::string_view value, const store::ArtifactKey& key,
                                         std::uint64_t max_body_bytes, store::ArtifactRecord* out);

[[nodiscard]] std::string EncodeAliasValue(const store::AliasKey& alias, const store::AliasValue& value);
[[nodiscard]] Status DecodeAliasValue(std::string_view value, const store::AliasKey& alias,
                                      store::AliasValue* out);
// Without a manifest / the artifact key alone.
[[nodiscard]] std::string EncodeAliasValue(const store::AliasKey& alias, const store::ArtifactKey& key);
[[nodiscard]] Status DecodeAliasValue(std::string_view value, const store::AliasKey& alias,
                                      store::ArtifactKey* out);

}  // namespace qdcache::remote
