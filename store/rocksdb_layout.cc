#include "store/rocksdb_layout.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include <algorithm>

#include "store/memory_release.h"
#include "store/rocksdb_logger.h"
#include "store/write_recovery.h"

namespace qdcache::store {
namespace {

bool Supported(rocksdb::CompressionType type) {
  static const std::vector<rocksdb::CompressionType> supported =
      rocksdb::GetSupportedCompressions();
  return std::find(supported.begin(), supported.end(), type) != supported.end();
}

// zstd where the RocksDB build has it; otherwise the best available, so a
// RocksDB built without zstd still opens the store instead of refusing it.
rocksdb::CompressionType PreferredCompression() {
  for (auto type : {rocksdb::kZSTD, rocksdb::kLZ4Compression, rocksdb::kSnappyCompression}) {
    if (Supported(type)) return type;
  }
  return rocksdb::kNoCompression;
}

// For table blocks, which every point lookup that misses the block cache
// decompresses: LZ4 where available (several times zstd's speed, with no
// per-call context set-up). Large values live in blob files, which keep
// PreferredCompression: they are decompressed once per artifact read, and
// the memory cache (record_cache.h) spares even that for hot ones.
rocksdb::CompressionType FastCompression() {
  for (auto type : {rocksdb::kLZ4Compression, rocksdb::kSnappyCompression}) {
    if (Supported(type)) return type;
  }
  return rocksdb::kNoCompression;
}

std::shared_ptr<rocksdb::TableFactory> Table(std::shared_ptr<rocksdb::Cache> cache, bool bloom) {
  rocksdb::BlockBasedTableOptions table;
  if (bloom) {
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    // Point lookups: a hash index inside each data block finds the key
    // without a binary search.
    table.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  }
  table.block_cache = std::move(cache);
  return std::shared_ptr<rocksdb::TableFactory>(rocksdb::NewBlockBasedTableFactory(table));
}

}  // namespace

rocksdb::DBOptions MakeDbOptions() {
  rocksdb::DBOptions options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.paranoid_checks = true;
  options.max_background_jobs = 2;
  // RocksDB's info log goes to the daemon's log, not to a LOG file on the
  // store's (possibly full) disk: see rocksdb_logger.h.
  options.info_log = MakeSpdlogLogger();
  // The store recovers from write errors itself (write_recovery.h).
  options.max_bgerror_resume_count = 0;
  options.listeners.push_back(std::make_shared<ManualRecoveryListener>());
  options.listeners.push_back(std::make_shared<ReleaseMemoryAfterFlush>());
  // Memory: every column family's memtables together stay within this
  // budget (the largest is flushed when it is reached), so a steady write
  // load costs a bounded, small amount of RSS instead of up to 64 MiB per
  // column family before the first flush.
  options.db_write_buffer_size = kMemtableBudget;
  options.max_open_files = kMaxOpenFiles;
  // Crash durability comes from the WAL, which these leave at their
  // defaults: manual_wal_flush = false (each write reaches the OS before it
  // returns) and wal_recovery_mode = kPointInTimeRecovery (a WAL torn by a
  // crash is replayed up to the tear; everything acknowledged lies before
  // it). Writes never set WriteOptions::disableWAL.
  return options;
}

std::vector<rocksdb::ColumnFamilyDescriptor> MakeColumnFamilyDescriptors() {
  const auto compression = PreferredCompression();
  const auto fast = FastCompression();
  // One block cache shared by every column family of this database.
  auto cache = rocksdb::NewLRUCache(64 << 20);

  rocksdb::ColumnFamilyOptions artifacts;
  artifacts.write_buffer_size = kMemtableBudget / 2;
  artifacts.compression = fast;
  artifacts.table_factory = Table(cache, /*bloom=*/true);
  artifacts.enable_blob_files = true;
  artifacts.min_blob_size = kMinBlobSize;
  artifacts.blob_compression_type = compression;
  // Overwrites and deletes leave dead blobs; let compaction reclaim them.
  artifacts.enable_blob_garbage_collection = true;
  // A lookup first searches the memtable, a skip list whose levels are a
  // cache miss each: 11-13% of the daemon's time answering lookups of a
  // 300 k-entry store (perf), nearly all of it for keys that are not there
  // but in the tables. A bloom filter over the memtable answers those at
  // once (2.8% with it), for 1 MB per 64 MB of memtable.
  artifacts.memtable_prefix_bloom_size_ratio = 0.02;
  artifacts.memtable_whole_key_filtering = true;

  // Stage outputs (PTX and the like) are sized and used like artifacts.
  rocksdb::ColumnFamilyOptions stages = artifacts;

  rocksdb::ColumnFamilyOptions aliases;
  aliases.write_buffer_size = kMemtableBudget / 8;
  aliases.memtable_prefix_bloom_size_ratio = 0.02;
  aliases.memtable_whole_key_filtering = true;
  aliases.compression = fast;
  aliases.table_factory = Table(cache, /*bloom=*/true);

  // Small keys, read in order (never by point lookup): no bloom filter.
  rocksdb::ColumnFamilyOptions access;
  access.write_buffer_size = kMemtableBudget / 8;
  access.compression = fast;
  access.table_factory = Table(cache, /*bloom=*/false);

  rocksdb::ColumnFamilyOptions meta;
  meta.write_buffer_size = kMemtableBudget / 8;
  meta.table_factory = Table(cache, /*bloom=*/true);

  return {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {std::string(kArtifactsColumnFamily), artifacts},
      {std::string(kStagesColumnFamily), stages},
      {std::string(kAliasesColumnFamily), aliases},
      {std::string(kAccessColumnFamily), access},
      {std::string(kMetaColumnFamily), meta},
  };
}

}  // namespace qdcache::store
