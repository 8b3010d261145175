// How the store lays itself out in RocksDB: column families, meta keys and the
// options each column family is opened with. Internal to the store; tests use
// it to open a store's database directly (e.g. to inject corruption).
//
//   artifacts  ArtifactKey -> record value (record_codec.h). Large values go
//              to blob files (BlobDB), zstd-compressed; bloom filters make a
//              miss cheap.
//   aliases    encoded AliasKey -> alias value (record_codec.h).
//   meta       "schema_version"        -> fixed32
//              "counter/artifacts"     -> fixed64
//              "counter/aliases"       -> fixed64
//              "counter/payload_bytes" -> fixed64
//              "size/" + ArtifactKey   -> fixed64, the bytes that record counts
//                                         in payload_bytes
//
// The per-record size entries make the counters exact without re-reading (or
// trusting) the old record on overwrite, delete or corruption drop: the size
// comes from a small entry written in the same WriteBatch as the record.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <string>
#include <string_view>
#include <vector>

namespace qdcache::store {

inline constexpr std::string_view kArtifactsColumnFamily = "artifacts";
inline constexpr std::string_view kAliasesColumnFamily = "aliases";
inline constexpr std::string_view kMetaColumnFamily = "meta";

inline constexpr std::string_view kSchemaVersionKey = "schema_version";
inline constexpr std::string_view kArtifactCountKey = "counter/artifacts";
inline constexpr std::string_view kAliasCountKey = "counter/aliases";
inline constexpr std::string_view kPayloadBytesKey = "counter/payload_bytes";
inline constexpr std::string_view kSizePrefix = "size/";

inline std::string SizeKey(std::string_view artifact_key) {
  std::string k(kSizePrefix);
  k.append(artifact_key);
  return k;
}

// Values at least this large are stored in blob files instead of SSTs.
inline constexpr std::uint64_t kMinBlobSize = 4096;

[[nodiscard]] rocksdb::DBOptions MakeDbOptions();

// Descriptors for every column family the store uses, in this order:
// default, artifacts, aliases, meta.
[[nodiscard]] std::vector<rocksdb::ColumnFamilyDescriptor> MakeColumnFamilyDescriptors();

}  // namespace qdcache::store
