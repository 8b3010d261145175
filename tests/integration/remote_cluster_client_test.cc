// The cluster client against a real Redis Cluster of three masters: routing
// by slot, MOVED with a stale slot map (one command or a pipeline), ASK while
// a slot migrates.
#include <catch2/catch.hpp>

#include "remote/cluster_client.h"
#include "remote/cluster_slot.h"
#include "tests/support/redis_server.h"
#include "tests/support/redis_skip.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::remote;
using namespace qdcache::testing;

namespace {

ConnectOptions Options() {
  ConnectOptions o;
  o.connect_timeout = std::chrono::seconds(2);
  o.op_timeout = std::chrono::seconds(2);
  return o;
}

Reply Must(Expected<Reply> reply) {
  INFO(reply.status().ToString());
  REQUIRE(reply.ok());
  return std::move(reply).value();
}

}  // namespace

TEST_CASE("the cluster client routes every key to its master", "[integration][remote][cluster]") {
  if (SkipWithoutRedis("cluster client tests")) return;
  TempDir dir;
  RedisCluster cluster(dir.path());
  cluster.Start();
  ClusterClient client({cluster.nodes()[0]->endpoint()}, Options());
  for (int i = 0; i < 30; ++i) {
    const std::string key = "route:" + std::to_string(i);
    CHECK(Must(client.Execute(key, {"SET", key, "v" + std::to_string(i)})).str == "OK");
    CHECK(Must(client.Execute(key, {"GET", key})).str == "v" + std::to_string(i));
    // Stored on the node that serves the slot.
    CHECK(cluster.NodeForSlot(KeySlot(key)).Command({"EXISTS", key}).integer == 1);
  }
  CHECK(client.counters().moved == 0);
  CHECK(client.counters().ask == 0);
}

TEST_CASE("a stale slot map is corrected by MOVED redirects", "[integration][remote][cluster]") {
  if (SkipWithoutRedis("cluster client tests")) return;
  TempDir dir;
  RedisCluster cluster(dir.path());
  cluster.Start();
  ClusterClient client({cluster.nodes()[0]->endpoint()}, Options());
  client.AssignAllSlotsForTesting(cluster.nodes()[0]->endpoint());
  int elsewhere = 0;
  for (int i = 0; i < 30; ++i) {
    const std::string key = "moved:" + std::to_string(i);
    if (&cluster.NodeForSlot(KeySlot(key)) != cluster.nodes()[0].get()) ++elsewhere;
    CHECK(Must(client.Execute(key, {"SET", key, "x"})).str == "OK");
  }
  REQUIRE(elsewhere > 0);
  CHECK(client.counters().moved == static_cast<std::uint64_t>(elsewhere));
  // The map learnt from the redirects: no more MOVED for the same keys.
  for (int i = 0; i < 30; ++i) {
    const std::string key = "moved:" + std::to_string(i);
    CHECK(Must(client.Execute(key, {"GET", key})).str == "x");
  }
  CHECK(client.counters().moved == static_cast<std::uint64_t>(elsewhere));
  CHECK(client.counters().refreshes == 0);
}

TEST_CASE("a slot being migrated is reached through ASK without changing the map",
          "[integration][remote][cluster]") {
  if (SkipWithoutRedis("cluster client tests")) return;
  TempDir dir;
  RedisCluster cluster(dir.path());
  cluster.Start();
  const std::string key = "{migrating}:key";
  const int slot = KeySlot(key);
  RedisServer& source = cluster.NodeForSlot(slot);
  RedisServer* target = nullptr;
  for (auto& node : cluster.nodes()) {
    if (node.get() != &source) target = node.get();
  }
  const std::string source_id = cluster.NodeId(source), target_id = cluster.NodeId(*target);
  REQUIRE(target->Command({"CLUSTER", "SETSLOT", std::to_string(slot), "IMPORTING", source_id}).str == "OK");
  REQUIRE(source.Command({"CLUSTER", "SETSLOT", std::to_string(slot), "MIGRATING", target_id}).str == "OK");

  ClusterClient client({cluster.nodes()[0]->endpoint()}, Options());
  // The key is not on the source: it answers ASK, the client asks the target.
  CHECK(Must(client.Execute(key, {"SET", key, "moved-in"})).str == "OK");
  CHECK(client.counters().ask == 1);
  CHECK(Must(client.Execute(key, {"GET", key})).str == "moved-in");
  CHECK(client.counters().ask == 2);  // the map still names the source
  CHECK(client.counters().moved == 0);
  CHECK(target->Command({"KEYS", key}).elements.size() == 1);
  CHECK(source.Command({"KEYS", key}).elements.empty());
}

TEST_CASE("pipelined commands reach the node of each slot, and a stale map is corrected by MOVED",
          "[integration][remote][cluster]") {
  if (SkipWithoutRedis("cluster client tests")) return;
  TempDir dir;
  RedisCluster cluster(dir.path());
  cluster.Start();
  ClusterClient client({cluster.nodes()[0]->endpoint()}, Options());
  client.AssignAllSlotsForTesting(cluster.nodes()[0]->endpoint());
  std::vector<ClusterClient::KeyedCommand> sets, gets;
  int elsewhere = 0;
  for (int i = 0; i < 30; ++i) {
    const std::string key = "many:" + std::to_string(i);
    if (&cluster.NodeForSlot(KeySlot(key)) != cluster.nodes()[0].get()) ++elsewhere;
    sets.push_back({key, {"SET", key, "v" + std::to_string(i)}});
    gets.push_back({key, {"GET", key}});
  }
  REQUIRE(elsewhere > 0);
  std::vector<Expected<Reply>> set_replies = client.ExecuteMany(sets);
  REQUIRE(set_replies.size() == sets.size());
  for (Expected<Reply>& reply : set_replies) CHECK(Must(std::move(reply)).str == "OK");
  CHECK(client.counters().moved == static_cast<std::uint64_t>(elsewhere));

  // The map learnt from the redirects: every GET goes to its node at once.
  std::vector<Expected<Reply>> get_replies = client.ExecuteMany(gets);
  REQUIRE(get_replies.size() == gets.size());
  for (int i = 0; i < 30; ++i) {
    CHECK(Must(std::move(get_replies[i])).str == "v" + std::to_string(i));
    const std::string& key = gets[i].key;
    CHECK(cluster.NodeForSlot(KeySlot(key)).Command({"EXISTS", key}).integer == 1);
  }
  CHECK(client.counters().moved == static_cast<std::uint64_t>(elsewhere));
  CHECK(client.counters().refreshes == 0);
}
