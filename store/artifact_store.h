// The daemon's artifact store: RocksDB with column families for artifacts,
// fast-key aliases and metadata. The daemon is its only writer.
//
// Misses are not errors: lookups return Expected<std::optional<...>>, with
// std::nullopt for a miss and a non-OK Status only for a real failure (I/O).
// Every read verifies the record's digests; a record that fails verification
// is deleted, counted in Stats().corrupt_dropped, and reported as a miss.
//
// Thread-safety: all methods may be called concurrently from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/expected.h"
#include "store/record.h"

namespace qdcache::store {

// Durability: every write goes through RocksDB's write-ahead log. With
// sync_writes = false an acknowledged write survives a crash or kill -9 of the
// process (the WAL is in the OS page cache when Put returns) but not a power
// loss or kernel crash; sync_writes = true fsyncs the WAL before returning.
struct StoreOptions {
  std::string path;            // directory; created (with parents) if missing
  bool sync_writes = false;    // fsync the WAL on every write (power-loss durability)
};

struct StoreStats {
  std::uint64_t artifacts = 0;        // number of artifact records
  std::uint64_t aliases = 0;
  std::uint64_t payload_bytes = 0;    // sum of stored payload+ptx sizes
  std::uint64_t corrupt_dropped = 0;  // records dropped on failed verification since open
};

class ArtifactStore {
 public:
  // Layout version written to the metadata column family. A store with another
  // version is moved aside to "<path>.incompatible-<unix-seconds>" (and
  // logged) and a fresh store is created; it is never half-read.
  static constexpr std::uint32_t kSchemaVersion = 1;

  [[nodiscard]] static Expected<std::unique_ptr<ArtifactStore>> Open(const StoreOptions& options);
  virtual ~ArtifactStore() = default;

  [[nodiscard]] virtual Expected<std::optional<ArtifactRecord>> Get(const ArtifactKey& key) = 0;

  // Writes the record and, if given, the alias pointing to it, in one atomic
  // WriteBatch. Overwrites an existing record with the same key.
  [[nodiscard]] virtual Status Put(const ArtifactRecord& record,
                                   const std::optional<AliasKey>& alias = std::nullopt) = 0;

  [[nodiscard]] virtual Expected<std::optional<ArtifactKey>> GetAlias(const AliasKey& alias) = 0;
  [[nodiscard]] virtual Status PutAlias(const AliasKey& alias, const ArtifactKey& key) = 0;

  // Removes the record (aliases to it become dangling and resolve to misses).
  [[nodiscard]] virtual Status Delete(const ArtifactKey& key) = 0;

  [[nodiscard]] virtual StoreStats Stats() = 0;
};

}  // namespace qdcache::store
