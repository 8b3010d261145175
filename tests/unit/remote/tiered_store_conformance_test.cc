// The ArtifactStore conformance suite (tests/unit/store/store_conformance.h)
// against the tiered store: a RocksDB local store with a remote tier in
// front of an in-memory backend. The remote is read-only and holds nothing,
// so every local miss also asks it (and misses) while the store must keep
// the local store's whole contract. A remote that holds copies changes the
// contract on purpose: what the local store deleted or evicted is read back
// and back-filled from it; tests/unit/remote/remote_tier_test.cc covers that.
// Damage closes the local store, damages it and reopens it, as the RocksDB
// factory does.
#include <memory>

#include "remote/remote_tier.h"
#include "remote/tiered_store.h"
#include "tests/unit/remote/memory_backend.h"
#include "tests/unit/store/store_factories.h"

namespace qdcache::store::testing {

class TieredFactory {
 public:
  std::unique_ptr<ArtifactStore> Make(StoreOptions options) { return Over(local_.Make(std::move(options))); }

  std::unique_ptr<ArtifactStore> Damage(std::unique_ptr<ArtifactStore> store, const DamageTarget& target) {
    store.reset();
    return Over(local_.Damage(nullptr, target));
  }

  // Calls the last store's remote tier received (each one a local miss).
  [[nodiscard]] int remote_calls() const { return backend_->calls(); }

 private:
  std::unique_ptr<ArtifactStore> Over(std::unique_ptr<ArtifactStore> local) {
    auto backend = std::make_unique<remote::testing::MemoryBackend>();
    backend_ = backend.get();
    remote::RemoteOptions options;
    options.read_only = true;
    return std::make_unique<remote::TieredStore>(
        std::move(local), std::make_unique<remote::RemoteTier>(std::move(options), std::move(backend)));
  }

  RocksDbFactory local_;
  remote::testing::MemoryBackend* backend_ = nullptr;  // inside the store last made
};

}  // namespace qdcache::store::testing

#define QDCACHE_STORE_CONFORMANCE_FACTORIES TieredFactory
#include "tests/unit/store/conformance/suite.h"

TEST_CASE("the tiered store's conformance runs ask its remote on every local miss", "[remote][tiered]") {
  qdcache::store::testing::TieredFactory factory;
  auto store = factory.Make({});
  REQUIRE(store->Get(qdcache::store::testing::KeyFor("absent")).ok());
  CHECK(factory.remote_calls() == 1);
}
