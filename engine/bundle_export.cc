#include "engine/bundle_export.h"

#include <spdlog/spdlog.h>

#include "common/digest.h"

namespace qdcache::engine {
namespace {

// Bytes an entry adds to a chunk beyond its own size: tag and length.
constexpr std::size_t kEntryOverhead = 16;

v1::BundleEntry AliasEntry(const store::StoredAlias& stored) {
  v1::BundleEntry e;
  v1::BundleAlias* a = e.mutable_alias();
  a->set_tenant(stored.alias.tenant);
  a->set_namespace_(stored.alias.ns);
  a->set_target(stored.alias.target);
  a->set_fast_key(stored.alias.fast_key);
  a->set_manifest(stored.manifest);
  a->set_artifact_key(stored.key);
  return e;
}

}  // namespace

v1::BundleEntry ArtifactEntry(store::StoredArtifact stored) {
  store::ArtifactRecord& r = stored.record;
  v1::BundleEntry e;
  v1::BundleArtifact* a = e.mutable_artifact();
  a->set_artifact_key(r.key);
  a->set_kind(static_cast<v1::ArtifactKind>(r.kind));
  a->set_target(r.target);
  a->set_toolchain(r.toolchain);
  a->set_payload(std::move(r.payload));
  a->set_payload_digest(r.payload_digest);
  a->set_ptx(std::move(r.ptx));
  a->set_metadata(std::move(r.metadata));
  a->set_compile_log(std::move(r.compile_log));
  a->set_compile_micros(r.compile_micros);
  a->set_created_unix_ms(r.created_unix_ms);
  a->set_last_access_unix_ms(stored.last_access_unix_ms);
  return e;
}

BundleExporter::BundleExporter(std::unique_ptr<store::StoreSnapshot> snapshot, ExportScope scope)
    : snapshot_(std::move(snapshot)),
      scope_(std::move(scope)),
      phase_(scope_.ns ? Phase::kAliases : Phase::kArtifacts) {}

Expected<bool> BundleExporter::Fill(v1::ExportChunk* chunk, std::size_t target_bytes,
                                    std::size_t max_bytes) {
  std::size_t bytes = 0;
  for (;;) {
    if (!pending_) {
      QDC_ASSIGN_OR_RETURN(pending_, NextEntry());
      if (!pending_) return false;
    }
    const std::size_t size = pending_->ByteSizeLong() + kEntryOverhead;
    if (size > max_bytes) {
      spdlog::warn("export: left out artifact {} ({} bytes; messages stop at {})",
                   ToHex(pending_->artifact().artifact_key()), size, max_bytes);
      chunk->set_skipped_too_large(chunk->skipped_too_large() + 1);
      pending_.reset();
      continue;
    }
    if (chunk->entries_size() > 0 && bytes + size > target_bytes) return true;
    *chunk->add_entries() = std::move(*pending_);
    pending_.reset();
    bytes += size;
    if (bytes >= target_bytes) return true;
  }
}

Expected<std::optional<v1::BundleEntry>> BundleExporter::NextEntry() {
  if (phase_ == Phase::kArtifacts) {
    QDC_ASSIGN_OR_RETURN(std::optional<v1::BundleEntry> artifact, NextArtifactEntry());
    if (artifact) return artifact;
    phase_ = Phase::kAliases;
  }
  if (phase_ == Phase::kAliases) {
    QDC_ASSIGN_OR_RETURN(std::optional<v1::BundleEntry> alias, NextAliasEntry());
    if (alias) return alias;
    phase_ = Phase::kDone;
  }
  return std::optional<v1::BundleEntry>();
}

Expected<std::optional<v1::BundleEntry>> BundleExporter::NextArtifactEntry() {
  for (;;) {
    QDC_ASSIGN_OR_RETURN(std::optional<store::StoredArtifact> stored, snapshot_->NextArtifact());
    if (!stored) return std::optional<v1::BundleEntry>();
    if (Recent(stored->last_access_unix_ms))
      return std::optional<v1::BundleEntry>(ArtifactEntry(std::move(*stored)));
  }
}

Expected<std::optional<v1::BundleEntry>> BundleExporter::NextAliasEntry() {
  if (queued_alias_) {
    std::optional<v1::BundleEntry> out = std::move(queued_alias_);
    queued_alias_.reset();
    return out;
  }
  for (;;) {
    QDC_ASSIGN_OR_RETURN(std::optional<store::StoredAlias> alias, snapshot_->NextAlias());
    if (!alias) return std::optional<v1::BundleEntry>();
    if (!scope_.ns) {
      // Every recent artifact went out in the first phase.
      QDC_ASSIGN_OR_RETURN(std::optional<std::uint64_t> last_access,
                           snapshot_->LastAccess(alias->key));
      if (last_access && Recent(*last_access))
        return std::optional<v1::BundleEntry>(AliasEntry(*alias));
      continue;
    }
    if (sent_.count(alias->key) != 0) return std::optional<v1::BundleEntry>(AliasEntry(*alias));
    QDC_ASSIGN_OR_RETURN(std::optional<store::StoredArtifact> artifact,
                         snapshot_->ReadArtifact(alias->key));
    if (!artifact || !Recent(artifact->last_access_unix_ms)) continue;  // dangling, or too old
    sent_.insert(alias->key);
    queued_alias_ = AliasEntry(*alias);
    return std::optional<v1::BundleEntry>(ArtifactEntry(std::move(*artifact)));
  }
}

}  // namespace qdcache::engine
