#include "store/artifact_store.h"

#include "store/memory_store.h"
#include "store/rocksdb_store.h"

namespace qdcache::store {

Expected<std::unique_ptr<ArtifactStore>> ArtifactStore::Open(const StoreOptions& options) {
  return RocksDbStore::Open(options);
}

std::unique_ptr<ArtifactStore> ArtifactStore::OpenInMemory(const StoreOptions& options) {
  return MemoryStore::Create(options);
}

Expected<std::shared_ptr<const ArtifactRecord>> ArtifactStore::GetShared(const ArtifactKey& key) {
  QDC_ASSIGN_OR_RETURN(std::optional<ArtifactRecord> record, Get(key));
  if (!record) return std::shared_ptr<const ArtifactRecord>();
  return std::shared_ptr<const ArtifactRecord>(std::make_shared<ArtifactRecord>(std::move(*record)));
}

Expected<std::optional<ArtifactKey>> ArtifactStore::GetAlias(const AliasKey& alias) {
  QDC_ASSIGN_OR_RETURN(std::optional<AliasValue> value, GetAliasValue(alias));
  if (!value) return std::optional<ArtifactKey>();
  return std::optional<ArtifactKey>(std::move(value->key));
}

Status ArtifactStore::PutAlias(const AliasKey& alias, const ArtifactKey& key) {
  return PutAliasValue(alias, AliasValue{key, {}});
}

}  // namespace qdcache::store
