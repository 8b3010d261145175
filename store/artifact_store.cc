#include "store/artifact_store.h"

#include "store/rocksdb_store.h"

namespace qdcache::store {

Expected<std::unique_ptr<ArtifactStore>> ArtifactStore::Open(const StoreOptions& options) {
  return RocksDbStore::Open(options);
}

}  // namespace qdcache::store
