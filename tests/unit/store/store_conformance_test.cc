// The ArtifactStore conformance suite (store_conformance.h) against the
// stores of store/: RocksDB and in memory.
#include "tests/unit/store/store_factories.h"

namespace qdcache::store::testing {
namespace {

TEST_CASE("the in-memory store is what ArtifactStore::OpenInMemory opens", "[store][memory]") {
  std::unique_ptr<ArtifactStore> store = ArtifactStore::OpenInMemory({});
  REQUIRE(dynamic_cast<MemoryStore*>(store.get()) != nullptr);
  REQUIRE(store->Put(MakeRecord("x")).ok());
  CHECK(store->FlushAccessTimes().ok());
  CHECK(store->Stats().memory_cache_entries == 0);
}

}  // namespace
}  // namespace qdcache::store::testing

#define QDCACHE_STORE_CONFORMANCE_FACTORIES RocksDbFactory, MemoryFactory
#include "tests/unit/store/conformance/suite.h"
