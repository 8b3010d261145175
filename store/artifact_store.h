// The daemon's artifact store: RocksDB with column families for artifacts,
// intermediate stage outputs, fast-key aliases, an access-order index and
// metadata (ArtifactStore::Open). The daemon is its only writer. The same
// contract is also kept in memory, without persistence
// (ArtifactStore::OpenInMemory, memory_store.h); tests/unit/store's
// conformance suite holds every implementation to it.
//
// Misses are not errors: lookups return Expected<std::optional<...>>, with
// std::nullopt for a miss and a non-OK Status only for a real failure (I/O).
// Every read verifies the entry's digests; an entry that fails verification
// is deleted, counted in Stats().corrupt_dropped, and reported as a miss.
// Lookups return copies: nothing they return is invalidated by a concurrent
// eviction or overwrite.
//
// Cache semantics: artifacts and stage outputs share one byte cap
// (StoreOptions::max_bytes) and are evicted least-recently-used first by a
// background thread. Deleting or evicting an artifact leaves the aliases that
// point to it in place; such a dangling alias still resolves, and the lookup
// of the key it names is a plain miss (the daemon recompiles).
//
// Thread-safety: all methods may be called concurrently from any thread. The
// store must outlive every call; its destructor stops the background thread
// after persisting pending access times.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "store/record.h"

namespace qdcache::store {

// Durability: every write goes through RocksDB's write-ahead log (never
// disableWAL, never manual_wal_flush), one atomic WriteBatch per call with the
// values, aliases and counters it changes. With sync_writes = false an
// acknowledged write survives a crash or kill -9 of the process (the WAL is in
// the OS page cache when Put returns) but not a power loss or kernel crash;
// sync_writes = true fsyncs the WAL before returning. Details in
// rocksdb_layout.h; tests/crash checks it against a real daemon.
//
// Full disk: writes fail with UNAVAILABLE while reads go on; once space is
// back the store writes again by itself, without being reopened
// (write_recovery.h).
// A subdirectory of the store directory that the store leaves to its owner
// (the daemon keeps its compile workers' scratch files there): it is neither
// part of the database nor a reason to call the directory foreign.
inline constexpr const char* kScratchSubdirectory = "worker-scratch";

struct StoreOptions {
  std::string path;          // directory; created (with parents) if missing
  bool sync_writes = false;  // fsync the WAL on every write (power-loss durability)

  // Cap on StoreStats::total_bytes (artifact payload+ptx plus stage bytes);
  // 0 = unlimited. When a Put or PutStage returns, total_bytes <= max_bytes +
  // the size of the entry it wrote (see Put for the details). An entry larger
  // than max_bytes on its own is stored, and is the first thing the next
  // eviction pass removes, so it never flushes the rest of the cache.
  std::uint64_t max_bytes = 10ull << 30;

  // How often access times recorded by Get/GetStage hits are written to disk
  // (in one batch). They are also written before every eviction pass, before
  // List/EvictOlderThan/TrimTo, by FlushAccessTimes, and on close. A crash
  // loses at most one interval of access times, never an entry. Zero or less:
  // only at those moments, never on a timer.
  std::chrono::milliseconds access_flush_interval{1000};

  // Verified artifact records kept in memory (record_cache.h): a hit on one
  // reads neither RocksDB nor re-hashes its payload. Bytes; 0 = none. Not
  // counted against max_bytes (it is memory, not disk).
  std::uint64_t memory_cache_bytes = 256ull << 20;

  // Wall clock for creation and access times; null = the system clock. Tests
  // inject a fake one. Access times never go backwards even if this does.
  std::function<std::chrono::system_clock::time_point()> clock = nullptr;
};

struct StoreStats {
  std::uint64_t artifacts = 0;  // number of artifact records
  std::uint64_t aliases = 0;
  std::uint64_t payload_bytes = 0;    // sum of stored artifact payload+ptx sizes
  std::uint64_t stage_entries = 0;    // number of stage outputs
  std::uint64_t stage_bytes = 0;      // sum of stage output sizes
  std::uint64_t total_bytes = 0;      // payload_bytes + stage_bytes: what max_bytes caps
  std::uint64_t corrupt_dropped = 0;  // entries dropped on failed verification since open
  std::uint64_t evictions = 0;        // entries evicted (cap, EvictOlderThan, TrimTo) since open
  std::uint64_t evicted_bytes = 0;    // their accounted bytes
  std::uint64_t memory_cache_entries = 0;  // records held in memory (StoreOptions::memory_cache_bytes)
  std::uint64_t memory_cache_bytes = 0;    // their cost
};

// One artifact as List reports it (no payload).
struct EntrySummary {
  std::string key;  // ArtifactKey, raw bytes
  std::uint32_t kind = 0;
  std::string target;
  std::string toolchain;
  std::uint64_t bytes = 0;  // accounted bytes: payload + ptx
  std::uint64_t payload_bytes = 0;  // the artifact's payload alone
  std::uint64_t created_unix_ms = 0;
  std::uint64_t last_access_unix_ms = 0;  // last Get hit or Put
  std::uint64_t compile_micros = 0;
};

struct EvictionResult {
  std::uint64_t entries = 0;  // artifacts and stage outputs removed
  std::uint64_t bytes = 0;    // their accounted bytes
};

struct VerifyResult {
  std::uint64_t checked = 0;  // artifacts + stage outputs + aliases examined
  std::uint64_t dropped = 0;  // of those, failed verification and deleted
  // Raw stored keys of the dropped entries: artifact keys, stage keys, and
  // encoded alias keys (record_codec.h).
  std::vector<std::string> dropped_keys;
};

// One artifact as a snapshot reads it: the verified record and when it was
// last used.
struct StoredArtifact {
  ArtifactRecord record;
  std::uint64_t last_access_unix_ms = 0;  // last Get hit or Put (as of the snapshot)
};

// One alias as stored.
// What it names (key, which may be gone: a dangling alias) and its manifest.
struct StoredAlias : AliasValue {
  AliasKey alias;
};

// Which aliases a snapshot's alias walk visits; an unset field matches all.
struct AliasScope {
  std::optional<std::string> tenant;
  std::optional<std::string> ns;
};

// A read-only view of the store as it was at one moment, for long walks
// (export): nothing written, evicted or touched after it was opened shows.
// Memory is bounded: one entry at a time. Reading through a snapshot is not
// an access (LRU order is left alone). A record or alias that fails
// verification is skipped, and dropped from the store as a corrupt read
// would be (unless it has been rewritten since).
//
// Holding a snapshot keeps RocksDB from reclaiming the space of entries
// deleted meanwhile: hold it for one walk, no longer. It must be destroyed
// before the store. Not thread-safe: one thread at a time (it may move
// between threads).
class StoreSnapshot {
 public:
  virtual ~StoreSnapshot() = default;

  // The next artifact in key order; nullopt after the last.
  [[nodiscard]] virtual Expected<std::optional<StoredArtifact>> NextArtifact() = 0;
  // The next alias in the snapshot's AliasScope, in stored order (one
  // tenant's aliases are contiguous); nullopt after the last.
  [[nodiscard]] virtual Expected<std::optional<StoredAlias>> NextAlias() = 0;
  // The artifact stored under `key` in the snapshot; nullopt when absent.
  [[nodiscard]] virtual Expected<std::optional<StoredArtifact>> ReadArtifact(const ArtifactKey& key) = 0;
  // When the artifact under `key` was last used (unix ms), without reading
  // its payload; nullopt when absent.
  [[nodiscard]] virtual Expected<std::optional<std::uint64_t>> LastAccess(const ArtifactKey& key) = 0;
};

// OK unless another process holds the store at `path` open (RocksDB keeps a
// POSIX lock on its LOCK file): then FAILED_PRECONDITION naming that process.
// Creates and changes nothing, so a second daemon can fail before it touches
// anything; Open checks it too.
[[nodiscard]] Status CheckStoreNotInUse(const std::string& path);

class ArtifactStore {
 public:
  // Layout version written to the metadata column family. A store with another
  // version is moved aside to "<path>.incompatible-<unix-seconds>" (and
  // logged) and a fresh store is created; it is never half-read.
  // 3: alias tenants are strings ("uid:N", "token:NAME", "cert:CN").
  static constexpr std::uint32_t kSchemaVersion = 3;

  [[nodiscard]] static Expected<std::unique_ptr<ArtifactStore>> Open(const StoreOptions& options);
  // A store held in memory: everything above but persistence (path,
  // sync_writes, memory_cache_bytes and access_flush_interval are ignored;
  // see memory_store.h). Never fails.
  [[nodiscard]] static std::unique_ptr<ArtifactStore> OpenInMemory(const StoreOptions& options);
  virtual ~ArtifactStore() = default;

  // A hit counts as an access for LRU eviction.
  [[nodiscard]] virtual Expected<std::optional<ArtifactRecord>> Get(const ArtifactKey& key) = 0;
  // Get, sharing the record instead of copying it out: a record the store
  // holds in memory (StoreOptions::memory_cache_bytes) costs no copy of its
  // payload. Null on a miss. The default wraps Get.
  [[nodiscard]] virtual Expected<std::shared_ptr<const ArtifactRecord>> GetShared(const ArtifactKey& key);

  // Writes the record and, if given, the alias pointing to it, in one atomic
  // WriteBatch. Overwrites an existing record with the same key. The write
  // counts as an access. Backpressure: if the store is over its cap by more
  // than this record's size, Put returns only after an eviction pass that
  // started after the write has finished. With concurrent writers the bound
  // holds for each at the moment its pass finished; others may have added
  // their own (each bounded the same way) since.
  [[nodiscard]] virtual Status Put(const ArtifactRecord& record,
                                   const std::optional<AliasKey>& alias = std::nullopt) = 0;

  // An alias and what it names, with its manifest. PutAliasValue replaces
  // both (an empty manifest removes a stored one).
  [[nodiscard]] virtual Expected<std::optional<AliasValue>> GetAliasValue(const AliasKey& alias) = 0;
  [[nodiscard]] virtual Status PutAliasValue(const AliasKey& alias, const AliasValue& value) = 0;
  // The same, for the artifact key alone (PutAlias stores no manifest).
  [[nodiscard]] Expected<std::optional<ArtifactKey>> GetAlias(const AliasKey& alias);
  [[nodiscard]] Status PutAlias(const AliasKey& alias, const ArtifactKey& key);

  // Removes the record (aliases to it become dangling and resolve to misses).
  [[nodiscard]] virtual Status Delete(const ArtifactKey& key) = 0;

  // Intermediate compile outputs (e.g. PTX) under a 32-byte digest the daemon
  // computes; a namespace separate from artifacts. Verified on read like
  // records, counted in stage_entries/stage_bytes and evicted like artifacts.
  [[nodiscard]] virtual Expected<std::optional<std::string>> GetStage(const std::string& key) = 0;
  // Same backpressure as Put. InvalidArgument on an empty key.
  [[nodiscard]] virtual Status PutStage(const std::string& key, std::string_view value) = 0;

  // A number that changes after every write that can change what an
  // earlier read of an artifact or alias answered, once that write is
  // visible to reads: one that replaces or removes an artifact or an alias
  // (not one that only adds a new artifact or alias, nor access times). An
  // answer whose items were all hits, computed between two equal readings,
  // may be served again for as long as the number stays the same. nullopt
  // where the store does not keep one (nothing may then be served again).
  [[nodiscard]] virtual std::optional<std::uint64_t> Generation() const = 0;
  // Counts these artifacts as read (their access times for LRU eviction)
  // without reading them: for an answer served again.
  virtual void RecordAccesses(const std::vector<ArtifactKey>& keys) = 0;

  // Persists the access times recorded by reads now rather than at the next
  // flush interval.
  [[nodiscard]] virtual Status FlushAccessTimes() = 0;

  // Artifacts (not stages), most recently used first; limit 0 = all. Reads
  // records one at a time; records that fail verification are dropped and
  // left out. Does not count as an access.
  [[nodiscard]] virtual Expected<std::vector<EntrySummary>> List(std::size_t limit = 0) = 0;

  // Evicts artifacts and stage outputs not accessed within `age`.
  [[nodiscard]] virtual Expected<EvictionResult> EvictOlderThan(std::chrono::milliseconds age) = 0;

  // Evicts until total_bytes <= max_bytes, entries larger than max_bytes on
  // their own first, then least recently used first. Leaves the configured cap
  // as it is.
  [[nodiscard]] virtual Expected<EvictionResult> TrimTo(std::uint64_t max_bytes) = 0;

  // Dry runs: what EvictOlderThan / TrimTo would evict now, in the same
  // order, removing nothing (writers may change the answer right after).
  [[nodiscard]] virtual Expected<EvictionResult> PlanEvictOlderThan(std::chrono::milliseconds age) = 0;
  [[nodiscard]] virtual Expected<EvictionResult> PlanTrimTo(std::uint64_t max_bytes) = 0;

  // Reads and verifies every artifact, stage output and alias; drops (and
  // counts in corrupt_dropped) those that fail. Dangling aliases are valid.
  [[nodiscard]] virtual Expected<VerifyResult> Verify() = 0;

  [[nodiscard]] virtual StoreStats Stats() = 0;

  // Persists pending access times (so a snapshot's last-access times are
  // current), then opens a snapshot whose alias walk covers `scope`.
  [[nodiscard]] virtual Expected<std::unique_ptr<StoreSnapshot>> OpenSnapshot(const AliasScope& scope) = 0;
};

}  // namespace qdcache::store
