// The Redis backends keep the RemoteBackend contract against real servers: one
// redis-server, and a Redis Cluster of three masters. The same suite runs
// against the in-memory test double (tests/unit/remote/memory_backend_test.cc).
// Skipped (with a warning) when redis-server is not on PATH.
#include <signal.h>

#include <catch2/catch.hpp>
#include <set>

#include "remote/cluster_slot.h"
#include "remote/remote_backend_factory.h"
#include "tests/support/redis_server.h"
#include "tests/support/redis_skip.h"
#include "tests/support/remote_backend_conformance.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::remote;
using namespace qdcache::testing;

namespace {

std::unique_ptr<RemoteBackend> BackendFor(const std::string& url) {
  ConnectOptions o;
  o.connect_timeout = std::chrono::seconds(2);
  o.op_timeout = std::chrono::seconds(2);
  Expected<RemoteUrl> parsed = ParseRemoteUrl(url);
  REQUIRE(parsed.ok());
  Expected<std::unique_ptr<RemoteBackend>> backend = MakeRemoteBackend(*parsed, o);
  REQUIRE(backend.ok());
  return std::move(backend).value();
}

void Stall(RedisServer& server) {
  if (server.running()) ::kill(server.pid(), SIGSTOP);  // the destructor's SIGKILL ends it
}

class StandaloneHarness final : public RemoteBackendHarness {
 public:
  StandaloneHarness() : server_(dir_.path()) {
    server_.Start();
    backend_ = BackendFor("redis://" + server_.endpoint().ToString());
  }
  RemoteBackend& backend() override { return *backend_; }
  long long TtlSeconds(const std::string& key) override {
    return server_.Command({"TTL", key}).integer;
  }
  void StoreWrongType(const std::string& key) override {
    REQUIRE(server_.Command({"RPUSH", key, "x"}).integer == 1);
  }
  int ServerCount() override { return 1; }
  int ServersHolding(const std::vector<std::string>& keys) override {
    for (const std::string& key : keys) {
      if (server_.Command({"EXISTS", key}).integer == 1) return 1;
    }
    return 0;
  }
  void KillServers() override { server_.Kill(); }
  void StallServers() override { Stall(server_); }

 private:
  TempDir dir_;
  RedisServer server_;
  std::unique_ptr<RemoteBackend> backend_;
};

class ClusterHarness final : public RemoteBackendHarness {
 public:
  ClusterHarness() : cluster_(dir_.path()) {
    cluster_.Start();
    // One seed: the other masters come from the slot map.
    backend_ = BackendFor("redis-cluster://" + cluster_.nodes()[0]->endpoint().ToString());
  }
  RemoteBackend& backend() override { return *backend_; }
  long long TtlSeconds(const std::string& key) override {
    return NodeFor(key).Command({"TTL", key}).integer;
  }
  void StoreWrongType(const std::string& key) override {
    REQUIRE(NodeFor(key).Command({"RPUSH", key, "x"}).integer == 1);
  }
  int ServerCount() override { return static_cast<int>(cluster_.nodes().size()); }
  int ServersHolding(const std::vector<std::string>& keys) override {
    std::set<RedisServer*> holding;
    for (const std::string& key : keys) {
      RedisServer& node = NodeFor(key);
      if (node.Command({"EXISTS", key}).integer == 1) holding.insert(&node);
    }
    return static_cast<int>(holding.size());
  }
  void KillServers() override { cluster_.KillAll(); }
  void StallServers() override {
    for (auto& node : cluster_.nodes()) Stall(*node);
  }

 private:
  RedisServer& NodeFor(const std::string& key) { return cluster_.NodeForSlot(KeySlot(key)); }

  TempDir dir_;
  RedisCluster cluster_;
  std::unique_ptr<RemoteBackend> backend_;
};

}  // namespace

TEST_CASE("the standalone Redis backend keeps the RemoteBackend contract",
          "[integration][remote][backend]") {
  if (SkipWithoutRedis("Redis backend conformance")) return;
  CheckRemoteBackendContract([] { return std::make_unique<StandaloneHarness>(); });
}

TEST_CASE("the Redis Cluster backend keeps the RemoteBackend contract",
          "[integration][remote][backend][cluster]") {
  if (SkipWithoutRedis("Redis backend conformance")) return;
  CheckRemoteBackendContract([] { return std::make_unique<ClusterHarness>(); });
}
