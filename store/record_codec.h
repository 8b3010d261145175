// Byte encodings of everything the store writes to RocksDB. Internal to the
// store (tests include it to inject corruption); nothing outside store/ should
// depend on these layouts.
//
// Artifact value = envelope + body:
//
//   offset  size  field
//   0       4     magic "QDCR"
//   4       4     envelope format version, little-endian (kRecordFormatVersion)
//   8       32    SHA-256(body)
//   40      n     body: serialized qdcache.store.internal.StoredRecord (record.proto)
//
// Why protobuf for the body rather than a hand-rolled layout: fields can be
// added without a new envelope version (old readers skip unknown fields, new
// readers see defaults), the parser is hardened against hostile input and
// reports failure instead of throwing or aborting, and protobuf is already a
// dependency of the project. The envelope digest makes the value
// self-checking: protobuf parsing alone would accept many bit flips as a
// different but well-formed message. The payload digest inside the body is
// checked separately (see VerifyRecord) so that a record that was encoded
// from bad bytes is caught too, not only one damaged at rest.
//
// Stage value = magic "QDCS" + envelope format version (u32 little-endian)
//               + SHA-256(stage key as a length-prefixed field || value as a
//               length-prefixed field) + value. The digest covers the key, so
//               a value moved under another key fails verification too.
//
// Alias key   = for tenant, ns, target and fast_key: a u32 big-endian
//               length followed by the bytes. Tenant first keeps one tenant's
//               aliases contiguous. (Schema 2 had a u32 uid as the tenant.)
// Alias value = magic "QDA" + version byte + first 8 bytes of a SHA-256
//               that ties the value to the alias key it was written under:
//   version 1 (no manifest): check over (alias key || artifact key), then
//               the artifact key;
//   version 2 (a manifest):  check over (alias key || artifact key ||
//               manifest), each length-prefixed, then the artifact key as a
//               u32 big-endian length and its bytes, then the manifest.
//               An alias without a manifest is still written as version 1,
//               which daemons before manifests read too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "store/record.h"

namespace qdcache::store {

inline constexpr std::uint32_t kRecordFormatVersion = 1;
inline constexpr std::string_view kRecordMagic = "QDCR";
inline constexpr std::size_t kRecordHeaderSize = 4 + 4 + 32;

// Encodes a record that the caller has already validated (see ValidateForPut).
[[nodiscard]] std::string EncodeRecord(const ArtifactRecord& record);

// Decodes and checks the envelope (magic, version, body digest) and the body.
// DataLoss with the reason on any failure; `out` is unspecified then.
[[nodiscard]] Status DecodeRecord(std::string_view value, ArtifactRecord* out);

// Checks a decoded record against the key it was read under and its payload
// digest. DataLoss with the reason on failure.
[[nodiscard]] Status VerifyRecord(const ArtifactRecord& record, std::string_view expected_key);

// Checks a record given to Put and fills payload_digest / created_unix_ms when
// they are empty / 0. InvalidArgument on an empty key or payload, or a given
// payload_digest that does not match the payload.
[[nodiscard]] Status ValidateForPut(ArtifactRecord* record, std::uint64_t now_unix_ms);

// Bytes that count towards StoreStats::payload_bytes for this record.
[[nodiscard]] inline std::uint64_t AccountedBytes(const ArtifactRecord& record) {
  return record.payload.size() + record.ptx.size();
}

inline constexpr std::string_view kStageMagic = "QDCS";
inline constexpr std::size_t kStageHeaderSize = 4 + 4 + 32;

[[nodiscard]] std::string EncodeStageValue(std::string_view key, std::string_view value);
// DataLoss when the stored value is malformed or was not written for this key.
[[nodiscard]] Status DecodeStageValue(std::string_view key, std::string_view stored,
                                      std::string* out);

[[nodiscard]] std::string EncodeAliasKey(const AliasKey& alias);
// The encoding every alias key of `tenant` (and, if given, of namespace
// `ns`) starts with: a prefix for walking one tenant's aliases.
[[nodiscard]] std::string EncodeAliasKeyPrefix(std::string_view tenant,
                                               const std::optional<std::string>& ns);
// Inverse of EncodeAliasKey; false when `encoded` is not one.
[[nodiscard]] bool DecodeAliasKey(std::string_view encoded, AliasKey* out);
[[nodiscard]] std::string EncodeAliasValue(std::string_view encoded_alias_key, const AliasValue& value);
// DataLoss when the stored value is malformed or was not written for this alias key.
[[nodiscard]] Status DecodeAliasValue(std::string_view encoded_alias_key, std::string_view value,
                                      AliasValue* out);
// The same, for an alias without a manifest / reading the artifact key alone.
[[nodiscard]] std::string EncodeAliasValue(std::string_view encoded_alias_key, const ArtifactKey& key);
[[nodiscard]] Status DecodeAliasValue(std::string_view encoded_alias_key, std::string_view value,
                                      ArtifactKey* out);

// Fixed-width little-endian integers for the meta column family.
[[nodiscard]] std::string EncodeFixed64(std::uint64_t v);
[[nodiscard]] std::string EncodeFixed32(std::uint32_t v);
[[nodiscard]] bool DecodeFixed64(std::string_view bytes, std::uint64_t* out);
[[nodiscard]] bool DecodeFixed32(std::string_view bytes, std::uint32_t* out);

}  // namespace qdcache::store
