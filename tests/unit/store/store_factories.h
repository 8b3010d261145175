// Factories for the ArtifactStore conformance suite (store_conformance.h):
// one per store in store/, each with the Damage hook the suite needs. Other
// stores (remote::TieredStore) may build theirs on RocksDbFactory.
#pragma once

#include <memory>

#include "store/artifact_store.h"
#include "store/memory_store.h"
#include "store/record_codec.h"
#include "tests/unit/store/store_conformance.h"
#include "tests/unit/store/store_test_util.h"

namespace qdcache::store::testing {

// The RocksDB store in a temporary directory. Damage closes the store,
// changes the stored value with RocksDB directly and reopens it.
class RocksDbFactory {
 public:
  std::unique_ptr<ArtifactStore> Make(StoreOptions options) {
    options.path = dir_.store_path();
    options_ = options;
    return OpenOrFail(options_);
  }

  std::unique_ptr<ArtifactStore> Damage(std::unique_ptr<ArtifactStore> store,
                                        const DamageTarget& target) {
    store.reset();  // RocksDB allows one process, one open: close it first
    {
      RawDb raw(options_.path);
      rocksdb::ColumnFamilyHandle* cf = raw.artifacts();
      std::string key = target.key;
      if (target.what == DamageTarget::What::kStage) cf = raw.stages();
      if (target.what == DamageTarget::What::kAlias) {
        cf = raw.aliases();
        key = EncodeAliasKey(target.alias);
      }
      std::optional<std::string> value = raw.Get(cf, key);
      REQUIRE(value.has_value());
      REQUIRE_FALSE(value->empty());
      (*value)[value->size() / 2] ^= 0x01;
      raw.Put(cf, key, *value);
    }
    return OpenOrFail(options_);
  }

 private:
  TempDir dir_;
  StoreOptions options_;
};

// The in-memory store. Damage goes through its test seams.
class MemoryFactory {
 public:
  std::unique_ptr<ArtifactStore> Make(const StoreOptions& options) {
    return MemoryStore::Create(options);
  }

  std::unique_ptr<ArtifactStore> Damage(std::unique_ptr<ArtifactStore> store,
                                        const DamageTarget& target) {
    auto* memory = dynamic_cast<MemoryStore*>(store.get());
    REQUIRE(memory != nullptr);
    bool damaged = false;
    switch (target.what) {
      case DamageTarget::What::kArtifact:
        damaged = memory->DamageArtifactForTesting(target.key);
        break;
      case DamageTarget::What::kStage:
        damaged = memory->DamageStageForTesting(target.key);
        break;
      case DamageTarget::What::kAlias:
        damaged = memory->DamageAliasForTesting(target.alias);
        break;
    }
    REQUIRE(damaged);
    return store;
  }
};

}  // namespace qdcache::store::testing
