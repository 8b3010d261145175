// Snapshots of the RocksDB store (ArtifactStore::OpenSnapshot): iterators
// over one rocksdb::Snapshot, so a walk sees the artifacts, their entry infos
// and the aliases as of one moment, one entry in memory at a time.
#include <rocksdb/db.h>
#include <rocksdb/snapshot.h>

#include "store/entry_index.h"
#include "store/record_codec.h"
#include "store/rocksdb_status.h"
#include "store/rocksdb_store.h"

namespace qdcache::store {

class RocksDbSnapshot final : public StoreSnapshot {
 public:
  RocksDbSnapshot(RocksDbStore& store, const AliasScope& scope)
      : store_(store), snapshot_(store.db_), scope_(scope) {
    read_options_.snapshot = snapshot_.snapshot();
    read_options_.fill_cache = false;  // a walk would only evict what is hot
    if (scope.tenant) alias_prefix_ = EncodeAliasKeyPrefix(*scope.tenant, scope.ns);
  }

  Expected<std::optional<StoredArtifact>> NextArtifact() override {
    if (!artifacts_) {
      artifacts_.reset(store_.db_->NewIterator(read_options_, store_.artifacts_));
      artifacts_->SeekToFirst();
    } else if (artifacts_->Valid()) {
      artifacts_->Next();
    }
    for (; artifacts_->Valid(); artifacts_->Next()) {
      const std::string key = artifacts_->key().ToString();
      ArtifactRecord record;
      Status check = DecodeRecord(artifacts_->value().ToStringView(), &record);
      if (check.ok()) check = VerifyRecord(record, key);
      if (!check.ok()) {
        store_.DropCorruptEntry(EntryKind::kArtifact, key, artifacts_->value().ToString(),
                                check.message());
        continue;
      }
      QDC_ASSIGN_OR_RETURN(std::optional<std::uint64_t> last_access, LastAccess(key));
      return std::optional<StoredArtifact>(
          StoredArtifact{std::move(record), last_access.value_or(0)});
    }
    QDC_RETURN_IF_ERROR(FromRocks(artifacts_->status(), "walking artifacts"));
    return std::optional<StoredArtifact>();
  }

  Expected<std::optional<StoredAlias>> NextAlias() override {
    if (!aliases_) {
      aliases_.reset(store_.db_->NewIterator(read_options_, store_.aliases_));
      aliases_->Seek(alias_prefix_);
    } else if (aliases_->Valid()) {
      aliases_->Next();
    }
    for (; aliases_->Valid() && aliases_->key().starts_with(alias_prefix_); aliases_->Next()) {
      const std::string encoded = aliases_->key().ToString();
      StoredAlias out;
      if (!DecodeAliasKey(encoded, &out.alias))
        continue;  // not written by this code; Verify's business
      if (scope_.ns && out.alias.ns != *scope_.ns) continue;
      Status check = DecodeAliasValue(encoded, aliases_->value().ToStringView(), static_cast<AliasValue*>(&out));
      if (!check.ok()) {
        store_.DropCorruptAlias(encoded, aliases_->value().ToString(), check.message());
        continue;
      }
      return std::optional<StoredAlias>(std::move(out));
    }
    QDC_RETURN_IF_ERROR(FromRocks(aliases_->status(), "walking aliases"));
    return std::optional<StoredAlias>();
  }

  Expected<std::optional<StoredArtifact>> ReadArtifact(const ArtifactKey& key) override {
    QDC_ASSIGN_OR_RETURN(std::optional<ArtifactRecord> record,
                         store_.ReadArtifact(key, read_options_));
    if (!record) return std::optional<StoredArtifact>();
    QDC_ASSIGN_OR_RETURN(std::optional<std::uint64_t> last_access, LastAccess(key));
    return std::optional<StoredArtifact>(
        StoredArtifact{std::move(*record), last_access.value_or(0)});
  }

  Expected<std::optional<std::uint64_t>> LastAccess(const ArtifactKey& key) override {
    QDC_ASSIGN_OR_RETURN(std::optional<EntryInfo> info,
                         store_.ReadEntryInfo(EntryKind::kArtifact, key, read_options_));
    if (!info) return std::optional<std::uint64_t>();
    return std::optional<std::uint64_t>(info->last_access / 1000);
  }

 private:
  RocksDbStore& store_;
  rocksdb::ManagedSnapshot snapshot_;
  const AliasScope scope_;
  rocksdb::ReadOptions read_options_;
  std::string alias_prefix_;  // empty: every alias
  // Declared after snapshot_: destroyed before it is released.
  std::unique_ptr<rocksdb::Iterator> artifacts_;
  std::unique_ptr<rocksdb::Iterator> aliases_;
};

Expected<std::unique_ptr<StoreSnapshot>> RocksDbStore::OpenSnapshot(const AliasScope& scope) {
  QDC_RETURN_IF_ERROR(FlushAccessTimes());
  return std::unique_ptr<StoreSnapshot>(new RocksDbSnapshot(*this, scope));
}

}  // namespace qdcache::store
