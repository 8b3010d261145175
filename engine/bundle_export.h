// The transport-free core of Export: walks a store snapshot and hands out
// bundle entries in chunks sized for gRPC messages.
//
// What is exported (docs/protocol.md, "Export and import"):
//   - without a namespace: every artifact in the snapshot (artifacts are
//     shared and already readable by every role through List/Inspect), then
//     the aliases of the scope's tenant(s) that name an exported artifact;
//   - with a namespace: the aliases of the scope's tenant(s) in it, each
//     preceded by the artifact it names (once), and nothing else;
//   - with `since`: only artifacts used or created at or after it, and only
//     aliases naming one of those.
// Artifacts always precede the aliases naming them, so an import cut short
// never leaves an alias whose artifact did not make it.
//
// Memory: one entry at a time, plus (with a namespace) the 32-byte keys of
// the artifacts already exported, so that each is sent once.
// Not thread-safe: one exporter per call, used from one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "common/expected.h"
#include "qdcache/v1/qdcache.pb.h"
#include "store/artifact_store.h"

namespace qdcache::engine {

struct ExportScope {
  std::optional<std::string> tenant;  // whose aliases; nullopt: every tenant's
  std::optional<std::string> ns;      // nullopt: every namespace, and every artifact
  std::uint64_t since_unix_ms = 0;    // 0: no age limit
};

class BundleExporter {
 public:
  BundleExporter(std::unique_ptr<store::StoreSnapshot> snapshot, ExportScope scope);

  // Moves entries into `chunk` until it holds about `target_bytes` (at
  // least one entry while any remain). An entry larger than `max_bytes` on
  // its own is left out and counted in chunk->skipped_too_large. True while
  // more may follow; false once the export is complete (`chunk` may still
  // hold its last entries). Errors are the store's.
  [[nodiscard]] Expected<bool> Fill(v1::ExportChunk* chunk, std::size_t target_bytes,
                                    std::size_t max_bytes);

 private:
  enum class Phase { kArtifacts, kAliases, kDone };
  [[nodiscard]] Expected<std::optional<v1::BundleEntry>> NextEntry();
  [[nodiscard]] Expected<std::optional<v1::BundleEntry>> NextArtifactEntry();
  [[nodiscard]] Expected<std::optional<v1::BundleEntry>> NextAliasEntry();
  [[nodiscard]] bool Recent(std::uint64_t last_access_unix_ms) const {
    return last_access_unix_ms >= scope_.since_unix_ms;
  }

  std::unique_ptr<store::StoreSnapshot> snapshot_;
  const ExportScope scope_;
  Phase phase_;
  std::optional<v1::BundleEntry> pending_;       // read, not yet in a chunk
  std::optional<v1::BundleEntry> queued_alias_;  // follows the artifact just returned
  std::unordered_set<std::string> sent_;         // with a namespace: artifacts exported
};

// The wire entry for a stored artifact.
[[nodiscard]] v1::BundleEntry ArtifactEntry(store::StoredArtifact stored);

}  // namespace qdcache::engine
