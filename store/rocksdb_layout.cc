#include "store/rocksdb_layout.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include <algorithm>

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

std::shared_ptr<rocksdb::TableFactory> Table(std::shared_ptr<rocksdb::Cache> cache, bool bloom) {
  rocksdb::BlockBasedTableOptions table;
  if (bloom) table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
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
  options.keep_log_file_num = 4;
  options.max_log_file_size = 8 << 20;
  return options;
}

std::vector<rocksdb::ColumnFamilyDescriptor> MakeColumnFamilyDescriptors() {
  const auto compression = PreferredCompression();
  // One block cache shared by every column family of this database.
  auto cache = rocksdb::NewLRUCache(64 << 20);

  rocksdb::ColumnFamilyOptions artifacts;
  artifacts.compression = compression;
  artifacts.table_factory = Table(cache, /*bloom=*/true);
  artifacts.enable_blob_files = true;
  artifacts.min_blob_size = kMinBlobSize;
  artifacts.blob_compression_type = compression;
  // Overwrites and deletes leave dead blobs; let compaction reclaim them.
  artifacts.enable_blob_garbage_collection = true;

  // Stage outputs (PTX and the like) are sized and used like artifacts.
  rocksdb::ColumnFamilyOptions stages = artifacts;

  rocksdb::ColumnFamilyOptions aliases;
  aliases.compression = compression;
  aliases.table_factory = Table(cache, /*bloom=*/true);

  // Small keys, read in order (never by point lookup): no bloom filter.
  rocksdb::ColumnFamilyOptions access;
  access.compression = compression;
  access.table_factory = Table(cache, /*bloom=*/false);

  rocksdb::ColumnFamilyOptions meta;
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
