// ArtifactStore on a local RocksDB database. Internal to the store: callers
// use ArtifactStore::Open.
//
// Durability: every write goes through the WAL. With StoreOptions::sync_writes
// = false an acknowledged write survives a crash or kill -9 of the process
// (the WAL is in the OS page cache) but not a power loss or kernel crash;
// with sync_writes = true each write fsyncs the WAL before returning.
//
// Concurrency: reads go straight to RocksDB and never block each other.
// Writes (Put, PutAlias, Delete, and dropping a corrupt entry found by a read)
// are serialized by one mutex, because each reads the size entry or alias it
// replaces to keep the counters exact; the counters are persisted in the same
// WriteBatch as the change they describe, so they are exact after a crash too.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "store/artifact_store.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
class WriteBatch;
}  // namespace rocksdb

namespace qdcache::store {

class RocksDbStore final : public ArtifactStore {
 public:
  [[nodiscard]] static Expected<std::unique_ptr<ArtifactStore>> Open(const StoreOptions& options);
  ~RocksDbStore() override;
  RocksDbStore(const RocksDbStore&) = delete;
  RocksDbStore& operator=(const RocksDbStore&) = delete;

  [[nodiscard]] Expected<std::optional<ArtifactRecord>> Get(const ArtifactKey& key) override;
  [[nodiscard]] Status Put(const ArtifactRecord& record,
                           const std::optional<AliasKey>& alias) override;
  [[nodiscard]] Expected<std::optional<ArtifactKey>> GetAlias(const AliasKey& alias) override;
  [[nodiscard]] Status PutAlias(const AliasKey& alias, const ArtifactKey& key) override;
  [[nodiscard]] Status Delete(const ArtifactKey& key) override;
  [[nodiscard]] StoreStats Stats() override;

 private:
  struct Counters {
    std::uint64_t artifacts = 0;
    std::uint64_t aliases = 0;
    std::uint64_t payload_bytes = 0;
  };
  // Result of opening one directory: a store, an incompatibility that calls
  // for moving the directory aside, or a plain error.
  struct OpenAttempt;

  RocksDbStore() = default;
  [[nodiscard]] static OpenAttempt TryOpen(const StoreOptions& options);
  [[nodiscard]] Status InitializeOrLoadMeta(std::string* incompatible_reason);
  [[nodiscard]] Status RecountLocked(Counters* out);
  void CloseDb();

  // Adds the counter updates to `batch`, writes it and publishes `next`.
  [[nodiscard]] Status CommitLocked(rocksdb::WriteBatch* batch, const Counters& next);
  // Looks up the accounted size of a stored record; nullopt when absent.
  [[nodiscard]] Expected<std::optional<std::uint64_t>> StoredSizeLocked(const ArtifactKey& key);
  [[nodiscard]] Expected<bool> AliasExistsLocked(const std::string& encoded_alias);
  // Deletes an entry a read found corrupt, unless it changed since that read
  // (`observed` holds the bytes seen; nullopt when RocksDB itself reported
  // corruption and no bytes were seen).
  void DropCorruptArtifact(const ArtifactKey& key, const std::optional<std::string>& observed,
                           const std::string& reason);
  void DropCorruptAlias(const std::string& encoded_alias, const std::string& observed,
                        const std::string& reason);

  std::string path_;
  bool sync_writes_ = false;
  rocksdb::DB* db_ = nullptr;  // owned; closed in CloseDb()
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::ColumnFamilyHandle* artifacts_ = nullptr;
  rocksdb::ColumnFamilyHandle* aliases_ = nullptr;
  rocksdb::ColumnFamilyHandle* meta_ = nullptr;

  std::mutex write_mu_;
  Counters counters_;                  // guarded by write_mu_
  std::uint64_t corrupt_dropped_ = 0;  // guarded by write_mu_
};

}  // namespace qdcache::store
