// An ArtifactStore held in memory (ArtifactStore::OpenInMemory): a test
// double that honours the whole contract of artifact_store.h (the
// conformance suite in tests/unit/store runs against it and the RocksDB
// store alike), and a store for a process that needs no persistence.
//
// Shared with the RocksDB store: the eviction policy (eviction.h, over this
// store's own index), the byte counters (entry_counters.h), the access clock
// and the verification of what it returns (record_codec.h).
//
// What differs, and why:
//   - Nothing is persisted. StoreOptions::path, sync_writes and
//     memory_cache_bytes are ignored (StoreStats::memory_cache_* stay 0:
//     there is no separate record cache; every record is in memory).
//   - A read moves its entry in the LRU order at once, so FlushAccessTimes
//     has nothing to do and access_flush_interval is ignored.
//   - A snapshot holds references to the records as they were when it was
//     opened (payloads are shared, not copied): entries evicted or deleted
//     meanwhile stay in memory until it is destroyed, as RocksDB keeps their
//     space.
//
// Verification on every read: an artifact is kept as a record and checked
// with VerifyRecord (the key it is stored under, the payload digest); stage
// outputs and aliases are kept in their encoded forms (record_codec.h) and
// decoded. An entry that fails is dropped, counted in corrupt_dropped and is
// a miss. The Damage*ForTesting seams change what is held so that tests can
// see that happen.
//
// Thread-safety: every method may be called concurrently from any thread.
// One mutex guards the maps; it is never held while hashing a payload or
// waiting for the eviction thread. The store must outlive every call and
// every snapshot it opened.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/access_tracker.h"
#include "store/artifact_store.h"
#include "store/entry_counters.h"
#include "store/entry_index.h"
#include "store/eviction.h"
#include "store/housekeeper.h"

namespace qdcache::store {

class MemoryStore final : public ArtifactStore, private EvictionIndex {
 public:
  // Never fails: nothing to open. Starts the eviction thread.
  [[nodiscard]] static std::unique_ptr<MemoryStore> Create(const StoreOptions& options);
  ~MemoryStore() override;  // stops the eviction thread
  MemoryStore(const MemoryStore&) = delete;
  MemoryStore& operator=(const MemoryStore&) = delete;

  [[nodiscard]] Expected<std::optional<ArtifactRecord>> Get(const ArtifactKey& key) override;
  [[nodiscard]] Expected<std::shared_ptr<const ArtifactRecord>> GetShared(
      const ArtifactKey& key) override;
  [[nodiscard]] Status Put(const ArtifactRecord& record,
                           const std::optional<AliasKey>& alias = std::nullopt) override;
  [[nodiscard]] Expected<std::optional<AliasValue>> GetAliasValue(const AliasKey& alias) override;
  [[nodiscard]] Status PutAliasValue(const AliasKey& alias, const AliasValue& value) override;
  [[nodiscard]] Status Delete(const ArtifactKey& key) override;
  [[nodiscard]] Expected<std::optional<std::string>> GetStage(const std::string& key) override;
  [[nodiscard]] Status PutStage(const std::string& key, std::string_view value) override;
  // Not kept: no answer is served again from a memory store.
  [[nodiscard]] std::optional<std::uint64_t> Generation() const override { return std::nullopt; }
  void RecordAccesses(const std::vector<ArtifactKey>& keys) override;
  [[nodiscard]] Status FlushAccessTimes() override;  // OK: nothing pending, ever
  [[nodiscard]] Expected<std::vector<EntrySummary>> List(std::size_t limit = 0) override;
  [[nodiscard]] Expected<EvictionResult> EvictOlderThan(std::chrono::milliseconds age) override;
  [[nodiscard]] Expected<EvictionResult> TrimTo(std::uint64_t max_bytes) override;
  [[nodiscard]] Expected<EvictionResult> PlanEvictOlderThan(std::chrono::milliseconds age) override;
  [[nodiscard]] Expected<EvictionResult> PlanTrimTo(std::uint64_t max_bytes) override;
  [[nodiscard]] Expected<VerifyResult> Verify() override;
  [[nodiscard]] StoreStats Stats() override;
  [[nodiscard]] Expected<std::unique_ptr<StoreSnapshot>> OpenSnapshot(
      const AliasScope& scope) override;

  // Test seams: change the bytes held for an entry (a payload byte of an
  // artifact, a byte of a stage output's or an alias's encoded value), as
  // damage at rest would, so that its next read fails verification. Counters
  // and LRU order are left alone. False when nothing is stored there.
  [[nodiscard]] bool DamageArtifactForTesting(const ArtifactKey& key);
  [[nodiscard]] bool DamageStageForTesting(const std::string& key);
  [[nodiscard]] bool DamageAliasForTesting(const AliasKey& alias);

 private:
  friend class MemorySnapshot;  // memory_store_snapshot.cc: drops what it finds damaged

  struct Artifact {
    std::shared_ptr<const ArtifactRecord> record;  // immutable; replaced, never changed
    std::uint64_t bytes = 0;
    std::uint64_t last_access = 0;  // tick
  };
  struct Stage {
    std::shared_ptr<const std::string> stored;  // EncodeStageValue; replaced, never changed
    std::uint64_t bytes = 0;
    std::uint64_t last_access = 0;
  };
  // What a snapshot copies: the maps as they are (records shared).
  struct Contents {
    std::map<ArtifactKey, Artifact> artifacts;
    std::map<std::string, std::string> aliases;  // encoded alias key -> encoded value
  };

  explicit MemoryStore(const StoreOptions& options);

  // Adds (kind, key) of `bytes` at a fresh tick to the LRU order, replacing
  // its record there at `old_access` (null: new); returns the tick.
  std::uint64_t IndexWriteLocked(EntryKind kind, const std::string& key, std::uint64_t bytes,
                                 const std::uint64_t* old_access);
  // Moves an entry read now to the end of the LRU order.
  void TouchLocked(EntryKind kind, const std::string& key, std::uint64_t bytes,
                   std::uint64_t* last_access);
  void RemoveLocked(EntryKind kind, const std::string& key);
  // Drop an entry a read found damaged, unless it was replaced since
  // (`observed`: what the read saw). True when dropped (and counted).
  bool DropCorruptArtifact(const ArtifactKey& key,
                           const std::shared_ptr<const ArtifactRecord>& observed,
                           const std::string& reason);
  bool DropCorruptStage(const std::string& key, const std::shared_ptr<const std::string>& observed,
                        const std::string& reason);
  bool DropCorruptAlias(const std::string& encoded_alias, const std::string& observed,
                        const std::string& reason);
  void CountDropLocked(std::string_view what, std::string_view key, const std::string& reason);
  // The artifact under `key`, verified, a hit counting as an access; null on
  // a miss (including a damaged one, dropped).
  [[nodiscard]] std::shared_ptr<const ArtifactRecord> ReadArtifact(const ArtifactKey& key);
  void RunEvictionPass();  // on the housekeeper thread

  // EvictionIndex over access_ (memory_store_index.cc).
  [[nodiscard]] std::uint64_t TotalBytes() override;
  [[nodiscard]] Expected<std::vector<IndexedEntry>> Oldest(const IndexedEntry* after,
                                                           std::size_t max) override;
  [[nodiscard]] Expected<std::vector<IndexedEntry>> LargerThan(std::uint64_t bytes) override;
  [[nodiscard]] Expected<EvictionResult> Remove(const std::vector<IndexedEntry>& listed,
                                                const Decide& decide,
                                                const Committed& committed) override;

  AccessClock clock_;

  std::mutex mu_;
  std::map<ArtifactKey, Artifact> artifacts_;  // guarded by mu_; key order (snapshots)
  std::map<std::string, Stage> stages_;        // guarded by mu_
  std::map<std::string, std::string>
      aliases_;  // guarded by mu_; EncodeAliasKey -> EncodeAliasValue
  std::map<std::string, std::uint64_t> access_;  // guarded by mu_; AccessKey -> bytes: LRU first
  EntryCounters counters_;                       // guarded by mu_
  std::uint64_t corrupt_dropped_ = 0;            // guarded by mu_

  Evictor evictor_;  // over this store's index; takes mu_ through it
  // Declared last: destroyed (stopped) first, while everything it uses lives.
  std::unique_ptr<Housekeeper> housekeeper_;
};

}  // namespace qdcache::store
