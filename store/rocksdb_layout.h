// How the store lays itself out in RocksDB: column families, meta keys and the
// options each column family is opened with. Internal to the store; tests use
// it to open a store's database directly (e.g. to inject corruption).
//
//   artifacts  ArtifactKey -> record value (record_codec.h). Large values go
//              to blob files (BlobDB), zstd-compressed; bloom filters make a
//              miss cheap.
//   stages     stage key -> stage value (record_codec.h); stored like artifacts.
//   aliases    encoded AliasKey -> alias value (record_codec.h).
//   access     access-order index (entry_index.h): LRU first.
//   meta       "schema_version"        -> fixed32
//              "counter/artifacts"     -> fixed64
//              "counter/aliases"       -> fixed64
//              "counter/payload_bytes" -> fixed64
//              "counter/stages"        -> fixed64
//              "counter/stage_bytes"   -> fixed64
//              "entry/" + kind + key   -> EntryInfo (entry_index.h): the bytes
//                                         the entry counts and its last access
//
// The per-entry info makes the counters exact without re-reading (or
// trusting) the old value on overwrite, delete, eviction or corruption drop:
// the size comes from a small entry written in the same WriteBatch as the
// value, together with the counters themselves.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <string>
#include <string_view>
#include <vector>

namespace qdcache::store {

inline constexpr std::string_view kArtifactsColumnFamily = "artifacts";
inline constexpr std::string_view kStagesColumnFamily = "stages";
inline constexpr std::string_view kAliasesColumnFamily = "aliases";
inline constexpr std::string_view kAccessColumnFamily = "access";
inline constexpr std::string_view kMetaColumnFamily = "meta";

inline constexpr std::string_view kSchemaVersionKey = "schema_version";
inline constexpr std::string_view kArtifactCountKey = "counter/artifacts";
inline constexpr std::string_view kAliasCountKey = "counter/aliases";
inline constexpr std::string_view kPayloadBytesKey = "counter/payload_bytes";
inline constexpr std::string_view kStageCountKey = "counter/stages";
inline constexpr std::string_view kStageBytesKey = "counter/stage_bytes";

// Values at least this large are stored in blob files instead of SSTs.
inline constexpr std::uint64_t kMinBlobSize = 4096;
// All memtables of the store together (DBOptions::db_write_buffer_size).
inline constexpr std::size_t kMemtableBudget = std::size_t{32} << 20;
// Table and blob files the store keeps open at once (DBOptions::max_open_files;
// the least recently used are closed and reopened when read): the daemon's
// fds stay bounded whatever the store's size, well under the usual soft limit
// of 1024 with room for connections and workers.
inline constexpr int kMaxOpenFiles = 512;

// Durability of what the store writes (every WriteBatch: values, entry infos,
// access index, aliases and counters together):
//   - the WAL is always on (WriteOptions::disableWAL is never set) and
//     flushed to the OS on every write (DBOptions::manual_wal_flush = false),
//     so a write that returned survives a crash or kill -9 of the process;
//   - WriteOptions::sync = StoreOptions::sync_writes (daemon --sync-writes)
//     also fsyncs the WAL, for power loss and kernel crashes;
//   - values in blob files are no exception: with integrated BlobDB a value
//     is written to the WAL and memtable like any other and only moved into
//     a blob file by a flush, which RocksDB syncs before it records the file
//     in the MANIFEST and drops the WAL;
//   - recovery replays the WAL up to the first torn record
//     (kPointInTimeRecovery, the default); every acknowledged write precedes
//     it.
// The crash test (tests/crash) checks this against a real daemon.
//
// Also: RocksDB's info log goes to spdlog (rocksdb_logger.h) and its
// automatic error recovery is off, the store resumes itself
// (write_recovery.h).
[[nodiscard]] rocksdb::DBOptions MakeDbOptions();

// Indexes into MakeColumnFamilyDescriptors() and the handles DB::Open returns.
enum ColumnFamilyIndex : std::size_t {
  kDefaultCf = 0,
  kArtifactsCf = 1,
  kStagesCf = 2,
  kAliasesCf = 3,
  kAccessCf = 4,
  kMetaCf = 5,
};

// Descriptors for every column family the store uses, in ColumnFamilyIndex
// order.
[[nodiscard]] std::vector<rocksdb::ColumnFamilyDescriptor> MakeColumnFamilyDescriptors();

// Read options for a walk over a whole column family: it does not fill the
// block cache (a full scan would only evict what is hot).
[[nodiscard]] inline rocksdb::ReadOptions ScanOptions() {
  rocksdb::ReadOptions options;
  options.fill_cache = false;
  return options;
}

}  // namespace qdcache::store
