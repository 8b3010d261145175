// The in-memory test double keeps the RemoteBackend contract, checked by the
// suite the Redis backends pass too (tests/integration/remote_backend_test.cc).
#include "tests/unit/remote/memory_backend.h"

#include <catch2/catch.hpp>

#include "tests/support/remote_backend_conformance.h"

using namespace qdcache;
using namespace qdcache::remote::testing;

namespace {

class MemoryHarness final : public qdcache::testing::RemoteBackendHarness {
 public:
  remote::RemoteBackend& backend() override { return backend_; }
  long long TtlSeconds(const std::string& key) override { return backend_.TtlSeconds(key); }
  void StoreWrongType(const std::string& key) override { backend_.StoreWrongType(key); }
  int ServerCount() override { return 1; }
  int ServersHolding(const std::vector<std::string>& keys) override {
    for (const std::string& key : keys) {
      if (backend_.Value(key)) return 1;
    }
    return 0;
  }
  void KillServers() override { backend_.FailEveryCall(Unavailable("connection refused")); }
  void StallServers() override { backend_.FailEveryCall(Unavailable("timed out")); }

 private:
  MemoryBackend backend_;
};

}  // namespace

TEST_CASE("the in-memory backend keeps the RemoteBackend contract", "[remote][backend]") {
  qdcache::testing::CheckRemoteBackendContract([] { return std::make_unique<MemoryHarness>(); });
}
