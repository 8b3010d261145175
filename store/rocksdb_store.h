// ArtifactStore on a local RocksDB database. Internal to the store: callers
// use ArtifactStore::Open. The implementation is split by concern:
//   rocksdb_store.cc          opening, metadata, counters, lifecycle, over
//                             rocksdb_database.h (the database, opened or
//                             refused), rocksdb_counters.h (the counters as
//                             persisted) and write_recovery.h (writes that
//                             resume the database after an I/O error)
//   rocksdb_store_entries.cc  reads and writes of artifacts, stages, aliases
//   rocksdb_store_admin.cc    access-time flushes, List, Verify, trimming
//   rocksdb_store_index.cc    the EvictionIndex over the access-order column
//                             family (the policy itself is eviction.h)
//   rocksdb_store_snapshot.cc snapshots: consistent walks for export
//
// Durability: every write goes through WriteLocked: one WriteBatch, WAL on,
// sync = StoreOptions::sync_writes (see MakeDbOptions in rocksdb_layout.h).
// With sync_writes = false an acknowledged write survives a crash or kill -9
// of the process (the WAL is in the OS page cache); with sync_writes = true
// each write fsyncs the WAL before returning.
//
// Write errors: a write that fails with an I/O error (a full disk) may
// resume the database and is then retried once (write_recovery.h); the store
// keeps serving reads throughout and never needs a restart to write again.
//
// Concurrency: reads go straight to RocksDB and never block each other or
// wait for writers; a hit only records its access time in memory
// (AccessTracker). Writes (Put, PutStage, PutAlias, Delete, dropping a
// corrupt entry, access-time flushes and eviction) are serialized by
// write_mu_, because each reads the entry info or alias it replaces to keep
// the counters exact; the counters are persisted in the same WriteBatch as the
// change they describe, so they are exact after a crash too. Eviction takes
// write_mu_ for one chunk of entries at a time (one EvictionIndex call), so
// writers interleave with a long pass. Lock order: write_mu_ before the
// Evictor's own lock; write_mu_ is never held while waiting for the
// housekeeper.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "store/access_tracker.h"
#include "store/artifact_store.h"
#include "store/entry_counters.h"
#include "store/entry_index.h"
#include "store/eviction.h"
#include "store/housekeeper.h"
#include "store/record_cache.h"
#include "store/write_recovery.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
struct ReadOptions;
class WriteBatch;
}  // namespace rocksdb

namespace qdcache::store {

class StoreDatabase;

class RocksDbStore final : public ArtifactStore, private EvictionIndex {
 public:
  [[nodiscard]] static Expected<std::unique_ptr<ArtifactStore>> Open(const StoreOptions& options);
  ~RocksDbStore() override;
  RocksDbStore(const RocksDbStore&) = delete;
  RocksDbStore& operator=(const RocksDbStore&) = delete;

  [[nodiscard]] Expected<std::optional<ArtifactRecord>> Get(const ArtifactKey& key) override;
  [[nodiscard]] Expected<std::shared_ptr<const ArtifactRecord>> GetShared(const ArtifactKey& key) override;
  [[nodiscard]] Status Put(const ArtifactRecord& record,
                           const std::optional<AliasKey>& alias) override;
  [[nodiscard]] Expected<std::optional<AliasValue>> GetAliasValue(const AliasKey& alias) override;
  [[nodiscard]] Status PutAliasValue(const AliasKey& alias, const AliasValue& value) override;
  [[nodiscard]] Status Delete(const ArtifactKey& key) override;
  [[nodiscard]] Expected<std::optional<std::string>> GetStage(const std::string& key) override;
  [[nodiscard]] Status PutStage(const std::string& key, std::string_view value) override;
  [[nodiscard]] std::optional<std::uint64_t> Generation() const override { return generation_.load(); }
  void RecordAccesses(const std::vector<ArtifactKey>& keys) override;
  [[nodiscard]] Status FlushAccessTimes() override;
  [[nodiscard]] Expected<std::vector<EntrySummary>> List(std::size_t limit) override;
  [[nodiscard]] Expected<EvictionResult> EvictOlderThan(std::chrono::milliseconds age) override;
  [[nodiscard]] Expected<EvictionResult> TrimTo(std::uint64_t max_bytes) override;
  [[nodiscard]] Expected<EvictionResult> PlanEvictOlderThan(std::chrono::milliseconds age) override;
  [[nodiscard]] Expected<EvictionResult> PlanTrimTo(std::uint64_t max_bytes) override;
  [[nodiscard]] Expected<VerifyResult> Verify() override;
  [[nodiscard]] StoreStats Stats() override;
  [[nodiscard]] Expected<std::unique_ptr<StoreSnapshot>> OpenSnapshot(const AliasScope& scope) override;

 private:
  friend class RocksDbSnapshot;  // rocksdb_store_snapshot.cc: reads through the helpers below
  using Counters = EntryCounters;
  // Result of opening one directory: a store, an incompatibility that calls
  // for moving the directory aside, or a plain error.
  struct OpenAttempt;

  explicit RocksDbStore(const StoreOptions& options);
  [[nodiscard]] static OpenAttempt TryOpen(const StoreOptions& options);
  [[nodiscard]] Status InitializeOrLoadMeta(std::string* incompatible_reason);
  [[nodiscard]] Status AdvanceClockPastNewestAccess();
  void StartHousekeeper();

  [[nodiscard]] rocksdb::ColumnFamilyHandle* ValuesCf(EntryKind kind) const;
  // Adds the counter updates to `batch`, writes it and publishes `next`;
  // then drops the artifacts it touched from record_cache_ and advances
  // generation_ (Generation()) unless the batch only adds: `adds_only` for a
  // batch that writes no artifact or alias that existed before and removes
  // nothing, which no earlier read can have seen (a new kernel's artifact
  // and alias, a stage output).
  [[nodiscard]] Status CommitLocked(rocksdb::WriteBatch* batch, const Counters& next, bool adds_only = false);
  // Writes `batch` through the WAL (fsynced when `sync`). After a resumable
  // failure it resumes the database, when resume_gate_ allows, and retries
  // once. `what` names the write in errors.
  [[nodiscard]] Status WriteLocked(rocksdb::WriteBatch* batch, bool sync, std::string_view what);
  // The stored entry info; nullopt when the entry is absent. Under write_mu_
  // it is the current one; otherwise as of `read_options`.
  [[nodiscard]] Expected<std::optional<EntryInfo>> ReadEntryInfo(
      EntryKind kind, std::string_view key, const rocksdb::ReadOptions& read_options);
  // Adds writing `value` as entry (kind, key) of `bytes` accounted bytes,
  // accessed now, to `batch` and `next`, replacing any existing entry
  // (*replaced, when given, says whether one existed).
  [[nodiscard]] Status PutEntryLocked(EntryKind kind, const std::string& key,
                                      const std::string& value, std::uint64_t bytes,
                                      rocksdb::WriteBatch* batch, Counters* next, bool* replaced = nullptr);
  // Adds the removal of an entry (value, info, index entry) described by
  // `info` to `batch` and `next`.
  [[nodiscard]] Status RemoveEntryLocked(EntryKind kind, std::string_view key,
                                         const EntryInfo& info, rocksdb::WriteBatch* batch,
                                         Counters* next);
  [[nodiscard]] Expected<bool> AliasExistsLocked(const std::string& encoded_alias);

  // The memory cache's record in *shared, or one read and verified from
  // disk: in *shared once the cache keeps it, else in *owned (not copied for
  // a cache that would not keep it). A miss leaves both empty. A hit counts
  // as an access.
  [[nodiscard]] Status ReadRecord(const ArtifactKey& key, std::shared_ptr<const ArtifactRecord>* shared,
                                  std::optional<ArtifactRecord>* owned);
  // Reads and verifies an artifact; a corrupt one is dropped and is a miss.
  [[nodiscard]] Expected<std::optional<ArtifactRecord>> ReadArtifact(
      const ArtifactKey& key, const rocksdb::ReadOptions& read_options);
  // Deletes an entry a read found corrupt, unless it changed since that read
  // (`observed` holds the bytes seen; nullopt when RocksDB itself reported
  // corruption and no bytes were seen). True when it was deleted.
  bool DropCorruptEntry(EntryKind kind, const std::string& key,
                        const std::optional<std::string>& observed, const std::string& reason);
  bool DropCorruptAlias(const std::string& encoded_alias, const std::string& observed,
                        const std::string& reason);

  // EvictionIndex over the access column family (rocksdb_store_index.cc).
  // Each call holds write_mu_ for its chunk.
  [[nodiscard]] std::uint64_t TotalBytes() override;
  [[nodiscard]] Expected<std::vector<IndexedEntry>> Oldest(const IndexedEntry* after,
                                                           std::size_t max) override;
  [[nodiscard]] Expected<std::vector<IndexedEntry>> LargerThan(std::uint64_t bytes) override;
  [[nodiscard]] Expected<EvictionResult> Remove(const std::vector<IndexedEntry>& listed,
                                                const Decide& decide,
                                                const Committed& committed) override;
  // After a removal that deleted access index records up to `deleted_up_to`:
  // moves lru_cursor_ to the first record left.
  void AdvanceLruCursorLocked(const std::string& deleted_up_to);
  void RunEvictionPass();  // on the housekeeper thread
  // Moves each entry's access-index record to its newer read tick (takes write_mu_).
  [[nodiscard]] Status WriteAccessTimes(const std::vector<AccessTracker::Access>& pending);

  std::string path_;
  bool sync_writes_ = false;
  std::chrono::milliseconds access_flush_interval_{0};
  std::unique_ptr<StoreDatabase> database_;  // closed by the destructor, after housekeeper_
  rocksdb::DB* db_ = nullptr;                 // database_'s, and its column families:
  rocksdb::ColumnFamilyHandle* artifacts_ = nullptr;
  rocksdb::ColumnFamilyHandle* stages_ = nullptr;
  rocksdb::ColumnFamilyHandle* aliases_ = nullptr;
  rocksdb::ColumnFamilyHandle* access_ = nullptr;
  rocksdb::ColumnFamilyHandle* meta_ = nullptr;

  AccessClock clock_;
  AccessTracker accesses_;
  // Generation(): advanced by CommitLocked after each write that may
  // replace or remove something (all but adds_only ones).
  std::atomic<std::uint64_t> generation_{0};
  RecordCache record_cache_;

  std::mutex write_mu_;
  Counters counters_;                  // guarded by write_mu_
  std::uint64_t corrupt_dropped_ = 0;  // guarded by write_mu_
  // Artifact keys written or deleted by the batch being built: CommitLocked
  // erases them from record_cache_ once the batch is written (or failed).
  // Guarded by write_mu_.
  std::vector<std::string> uncached_after_commit_;
  // When a failed write may try DB::Resume() (write_recovery.h). Guarded by
  // write_mu_.
  ResumeGate resume_gate_{std::chrono::seconds(1)};
  // Every access index entry below lru_cursor_ is deleted, so walks start
  // there instead of stepping over the tombstones of everything evicted
  // since open. Set after each removal to the first entry left (empty: from
  // the start). It stays true because writes take fresh ticks (greater than
  // any before) and flushes move a read whose tick is not above
  // lru_cursor_tick_ (the cursor's tick) to lru_cursor_tick_ + 1.
  // Guarded by write_mu_.
  std::string lru_cursor_;
  std::uint64_t lru_cursor_tick_ = 0;

  // The eviction policy over this store's EvictionIndex.
  Evictor evictor_;

  // Declared last: destroyed (stopped) first, while everything it uses lives.
  std::unique_ptr<Housekeeper> housekeeper_;
};

}  // namespace qdcache::store
