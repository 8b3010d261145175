// Snapshots of the in-memory store: a copy of its maps taken under its lock
// (records and their payloads shared, not copied), walked one entry at a
// time and verified like any read.
#include "store/memory_store.h"
#include "store/record_codec.h"

namespace qdcache::store {

class MemorySnapshot final : public StoreSnapshot {
 public:
  MemorySnapshot(MemoryStore& store, MemoryStore::Contents contents, const AliasScope& scope)
      : store_(store), contents_(std::move(contents)), scope_(scope) {
    next_artifact_ = contents_.artifacts.begin();
    next_alias_ = contents_.aliases.begin();
  }

  Expected<std::optional<StoredArtifact>> NextArtifact() override {
    while (next_artifact_ != contents_.artifacts.end()) {
      const auto& [key, entry] = *next_artifact_++;
      if (std::optional<StoredArtifact> out = Verified(key, entry)) return out;
    }
    return std::optional<StoredArtifact>();
  }

  Expected<std::optional<StoredAlias>> NextAlias() override {
    while (next_alias_ != contents_.aliases.end()) {
      const auto& [encoded, value] = *next_alias_++;
      StoredAlias out;
      if (!DecodeAliasKey(encoded, &out.alias)) continue;  // not written by this code
      if (scope_.ns && out.alias.ns != *scope_.ns) continue;
      if (Status check = DecodeAliasValue(encoded, value, static_cast<AliasValue*>(&out)); !check.ok()) {
        store_.DropCorruptAlias(encoded, value, check.message());
        continue;
      }
      return std::optional<StoredAlias>(std::move(out));
    }
    return std::optional<StoredAlias>();
  }

  Expected<std::optional<StoredArtifact>> ReadArtifact(const ArtifactKey& key) override {
    auto it = contents_.artifacts.find(key);
    if (it == contents_.artifacts.end()) return std::optional<StoredArtifact>();
    return Verified(it->first, it->second);
  }

  Expected<std::optional<std::uint64_t>> LastAccess(const ArtifactKey& key) override {
    auto it = contents_.artifacts.find(key);
    if (it == contents_.artifacts.end()) return std::optional<std::uint64_t>();
    return std::optional<std::uint64_t>(it->second.last_access / 1000);
  }

 private:
  // The artifact as the snapshot holds it, verified; nullopt (and dropped
  // from the store unless replaced there since) when it fails.
  std::optional<StoredArtifact> Verified(const ArtifactKey& key,
                                         const MemoryStore::Artifact& entry) {
    if (Status check = VerifyRecord(*entry.record, key); !check.ok()) {
      store_.DropCorruptArtifact(key, entry.record, check.message());
      return std::nullopt;
    }
    return StoredArtifact{*entry.record, entry.last_access / 1000};
  }

  MemoryStore& store_;
  const MemoryStore::Contents contents_;
  const AliasScope scope_;
  std::map<ArtifactKey, MemoryStore::Artifact>::const_iterator next_artifact_;
  std::map<std::string, std::string>::const_iterator next_alias_;
};

Expected<std::unique_ptr<StoreSnapshot>> MemoryStore::OpenSnapshot(const AliasScope& scope) {
  // Only the aliases in scope: one tenant's are contiguous under their prefix.
  const std::string prefix = scope.tenant ? EncodeAliasKeyPrefix(*scope.tenant, scope.ns) : "";
  Contents contents;
  {
    std::lock_guard<std::mutex> lock(mu_);
    contents.artifacts = artifacts_;
    for (auto it = aliases_.lower_bound(prefix);
         it != aliases_.end() && std::string_view(it->first).starts_with(prefix); ++it) {
      contents.aliases.insert(contents.aliases.end(), *it);
    }
  }
  return std::unique_ptr<StoreSnapshot>(new MemorySnapshot(*this, std::move(contents), scope));
}

}  // namespace qdcache::store
