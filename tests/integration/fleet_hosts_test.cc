// A fleet on several hosts: three daemon hosts and a Redis host, each a
// network namespace on a virtual switch (tests/support/virtual_network.h),
// each daemon with its own store, reaching Redis over the virtual network.
// Clients reach each daemon through its unix socket (the file system is
// shared). Every daemon signs what it writes and trusts the fleet's key.
// Skipped, naming the reason, where namespaces cannot be created.
#include <sys/stat.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <thread>

#include "signing/signing_key.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/log_watch.h"
#include "tests/support/redis_server.h"
#include "tests/support/redis_skip.h"
#include "tests/support/stampede.h"
#include "tests/support/subprocess.h"
#include "tests/support/virtual_network.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace fleet_hosts_test {

const std::vector<std::string> kDaemonHosts = {"h1", "h2", "h3"};

bool Skip() {
  if (SkipWithoutRedis("the multi-host fleet tests")) return true;
  if (std::optional<std::string> why = VirtualNetwork::SkipReason()) {
    WARN("multi-host fleet tests skipped: " << *why);
    return true;
  }
  if (FindOnPath("nsenter").empty()) {
    WARN("multi-host fleet tests skipped: nsenter (util-linux) is not installed");
    return true;
  }
  return false;
}

class Fleet {
 public:
  // With `cluster`: a Redis Cluster of three masters, each with a replica,
  // on the Redis host; else one Redis server.
  explicit Fleet(bool cluster = false) : net_({"redis", "h1", "h2", "h3"}) {
    std::string url;
    if (cluster) {
      cluster_ = std::make_unique<RedisCluster>(Dir("redis"), /*replicas=*/1);
      cluster_->set_network(net_.NamespacePath("redis"), net_.Address("redis"));
      cluster_->Start();
      url = "redis-cluster://" + cluster_->nodes().front()->endpoint().ToString() + "/fleet:";
    } else {
      redis_ = std::make_unique<RedisServer>(Dir("redis"));
      redis_->set_network(net_.NamespacePath("redis"), net_.Address("redis"));
      redis_->Start();
      url = "redis://" + redis_->endpoint().ToString() + "/fleet:";
    }
    const std::string keys = Dir("keys");
    Expected<signing::SigningKey> key = signing::SigningKey::Generate();
    REQUIRE(key.ok());
    REQUIRE(signing::WriteNewKeyPair(*key, keys + "/fleet.pem").ok());
    for (const std::string& host : kDaemonHosts) {
      auto d = std::make_unique<DaemonProcess>(
          Dir(host), std::vector<std::string>{"--remote", url, "--workers", "2", "--remote-timeout", "500ms",
                                              "--remote-backoff", "200ms", "--remote-lease", "2s",
                                              "--remote-signing-key", keys + "/fleet.pem",
                                              "--remote-trusted-keys", keys + "/fleet.pem.pub"});
      const std::string ns = net_.NamespacePath(host);
      d->set_child_setup([ns] { return VirtualNetwork::EnterPath(ns.c_str()); });
      d->Start();
      daemons_.push_back(std::move(d));
    }
  }

  DaemonProcess& daemon(std::size_t i) { return *daemons_[i]; }
  std::vector<DaemonProcess*> all() {
    std::vector<DaemonProcess*> out;
    for (auto& d : daemons_) out.push_back(d.get());
    return out;
  }
  VirtualNetwork& net() { return net_; }
  RedisServer& redis() { return *redis_; }
  RedisCluster& cluster() { return *cluster_; }

  std::uint64_t Sum(const std::function<std::uint64_t(const v1::Stats&)>& field) {
    std::uint64_t total = 0;
    for (auto& d : daemons_) total += field(StatsOf(*d));
    return total;
  }
  // Nothing corrupt or untrusted was ever read by any daemon.
  void CheckNothingBadRead() {
    for (auto& d : daemons_) {
      const v1::Stats s = StatsOf(*d);
      CHECK(s.remote_corrupt() == 0);
      CHECK(s.remote_untrusted() == 0);
    }
  }
  // Waits until daemon i logs that Redis is back (after byte `mark`).
  void AwaitBack(std::size_t i, std::size_t mark) {
    REQUIRE(WaitForLogText(daemons_[i]->log_path(), mark, " is back", daemons_[i]->pid()));
  }
  // Waits until no daemon's breaker is open: each that is degraded probes
  // Redis by itself and logs when it is back.
  void AwaitAllHealthy() {
    for (std::size_t i = 0; i < daemons_.size(); ++i) {
      const std::size_t mark = FileSize(daemons_[i]->log_path());  // before the state: a change after it is logged after it
      if (StatsOf(*daemons_[i]).remote_state() == "degraded") AwaitBack(i, mark);
    }
  }
  // Sharing works again: a kernel compiled on h1 is an alias hit on every
  // other host. After a failover a daemon may still name the dead node for
  // some slots until a call there fails (which refreshes its map): then the
  // next kernel (another slot) tells, up to a few.
  void CheckSharing(int salt) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      AwaitAllHealthy();
      const v1::KernelDescriptor k = StampedeKernel(attempt, salt);
      REQUIRE(CompileOne(*daemons_[0]->Connect(), k).status() == v1::CACHE_STATUS_COMPILED);
      bool everywhere = true;
      for (std::size_t i = 1; i < daemons_.size(); ++i) {
        everywhere = everywhere && LookupOne(*daemons_[i], k).status() == v1::CACHE_STATUS_ALIAS_HIT;
      }
      if (everywhere) return;
      WARN("kernel " << attempt << " of salt " << salt << " was not shared everywhere; trying another");
    }
    FAIL("no kernel compiled on h1 became an alias hit on every other host");
  }

 private:
  std::string Dir(const std::string& name) {
    const std::string path = tmp_ / name;
    REQUIRE(::mkdir(path.c_str(), 0700) == 0);
    return path;
  }

  TempDir tmp_;
  VirtualNetwork net_;
  std::unique_ptr<RedisServer> redis_;
  std::unique_ptr<RedisCluster> cluster_;
  std::vector<std::unique_ptr<DaemonProcess>> daemons_;
};

void CheckIdenticalBytes(const StampedeResult& s, int kernels) {
  INFO(s.first_failure);
  CHECK(s.failures == 0);
  CHECK(s.payloads.size() == static_cast<std::size_t>(kernels));
  for (const auto& [n, payloads] : s.payloads) {
    INFO("kernel " << n);
    CHECK(payloads.size() == 1);
  }
}

TEST_CASE("three hosts on a virtual network compile each of 40 cold kernels once across the fleet, and compile "
          "what a host that dies holding its lease left",
          "[integration][remote][fleet][hosts]") {
  if (Skip()) return;
  Fleet fleet;
  const StampedeResult s = RunStampede(fleet.all(), 8, 40);
  CheckIdenticalBytes(s, 40);
  CHECK(fleet.Sum([](const v1::Stats& st) { return st.compiles(); }) == 40);
  CHECK(fleet.Sum([](const v1::Stats& st) { return st.fleet_leases(); }) == 40);
  CHECK(fleet.Sum([](const v1::Stats& st) { return st.fleet_wait_timeouts(); }) == 0);
  fleet.CheckNothingBadRead();
  for (std::size_t i = 0; i < 3; ++i) CHECK(StatsOf(fleet.daemon(i)).remote_state() == "ok");

  // h1 dies mid-compile holding the lease; h2, waiting, takes it over once it expires.
  const v1::KernelDescriptor slow = SlowCpuKernel(20000, "hosts_slow");
  const std::size_t holder_mark = FileSize(fleet.daemon(0).log_path());  // past the stampede's leases
  std::jthread doomed([&] {
    try {
      (void)CompileOne(*fleet.daemon(0).Connect(), slow);
    } catch (const std::exception&) {
      // killed under the call
    }
  });
  REQUIRE(WaitForLogText(fleet.daemon(0).log_path(), holder_mark, "fleet: took the lease of", fleet.daemon(0).pid()));
  const std::size_t mark = FileSize(fleet.daemon(1).log_path());
  v1::CompileResult taken_over;
  std::jthread waiter([&] { taken_over = CompileOne(*fleet.daemon(1).Connect(), slow); });
  REQUIRE(WaitForLogText(fleet.daemon(1).log_path(), mark, "waiting for its artifact", fleet.daemon(1).pid()));
  fleet.daemon(0).Kill();
  doomed.join();
  waiter.join();
  CHECK(taken_over.status() == v1::CACHE_STATUS_COMPILED);
  const v1::Stats h2 = StatsOf(fleet.daemon(1));
  CHECK(h2.fleet_wait_timeouts() == 0);
  CHECK(h2.fleet_wait_orphans() == 1);  // the lease expired without an artifact: compiled here
  // h3 finds it published.
  CHECK(CompileOne(*fleet.daemon(2).Connect(), slow).status() == v1::CACHE_STATUS_HIT);
}

TEST_CASE("a partitioned host, a paused Redis and a killed Redis during cold stampedes cost no client an error",
          "[integration][remote][fleet][hosts]") {
  if (Skip()) return;
  Fleet fleet;

  SECTION("a host cut off from the network compiles locally, then shares again once it is back") {
    fleet.net().SetLink("h3", false);
    const std::size_t mark = FileSize(fleet.daemon(2).log_path());
    const StampedeResult s = RunStampede(fleet.all(), 8, 40, /*salt=*/1);
    CheckIdenticalBytes(s, 40);
    const v1::Stats h3 = StatsOf(fleet.daemon(2));
    CHECK(h3.remote_state() == "degraded");
    CHECK(h3.compiles() == 40);  // on its own
    CHECK(StatsOf(fleet.daemon(0)).compiles() + StatsOf(fleet.daemon(1)).compiles() == 40);
    fleet.net().SetLink("h3", true);
    fleet.AwaitBack(2, mark);
    fleet.CheckSharing(2);
    fleet.CheckNothingBadRead();
  }

  SECTION("a Redis paused past the timeouts is waited out, then used again") {
    std::vector<std::size_t> marks;
    for (std::size_t i = 0; i < 3; ++i) marks.push_back(FileSize(fleet.daemon(i).log_path()));
    REQUIRE(fleet.redis().Command({"CLIENT", "PAUSE", "3000", "ALL"}).str == "OK");
    const StampedeResult s = RunStampede(fleet.all(), 8, 40, /*salt=*/3);
    CheckIdenticalBytes(s, 40);
    CHECK(fleet.Sum([](const v1::Stats& st) { return st.remote_errors() + st.remote_skipped(); }) > 0);
    for (std::size_t i = 0; i < 3; ++i) fleet.AwaitBack(i, marks[i]);
    fleet.CheckSharing(4);
    fleet.CheckNothingBadRead();
  }

  SECTION("Redis killed in the middle of a stampede: local compiles, then sharing again once it restarts") {
    std::vector<std::size_t> marks;
    for (std::size_t i = 0; i < 3; ++i) marks.push_back(FileSize(fleet.daemon(i).log_path()));
    std::atomic<bool> killed{false};
    const StampedeResult s = RunStampede(fleet.all(), 8, 40, /*salt=*/5, [&](int answers) {
      if (answers >= 30 && !killed.exchange(true)) fleet.redis().Kill();
    });
    REQUIRE(killed);
    CheckIdenticalBytes(s, 40);
    fleet.redis().Start();  // same port, empty
    for (std::size_t i = 0; i < 3; ++i) fleet.AwaitBack(i, marks[i]);
    fleet.CheckSharing(6);
    fleet.CheckNothingBadRead();
  }
}

TEST_CASE("a Redis Cluster primary killed during a cold stampede from all hosts fails over to its replica "
          "without a client error, and sharing resumes",
          "[integration][remote][fleet][hosts][cluster]") {
  if (Skip()) return;
  Fleet fleet(/*cluster=*/true);
  std::vector<RedisServer*> masters = fleet.cluster().Masters();
  REQUIRE(masters.size() == 3);
  RedisServer* primary = masters.front();
  RedisServer* replica = fleet.cluster().ReplicaOf(*primary);
  REQUIRE(replica != nullptr);
  const std::size_t replica_mark = FileSize(replica->log_path());
  std::atomic<bool> killed{false};
  const StampedeResult s = RunStampede(fleet.all(), 8, 40, /*salt=*/7, [&](int answers) {
    if (answers >= 30 && !killed.exchange(true)) primary->Kill();
  });
  REQUIRE(killed);
  CheckIdenticalBytes(s, 40);
  const bool failed_over = WaitForLogText(replica->log_path(), replica_mark, "Failover election won", replica->pid());
  INFO(replica->log().substr(replica_mark));
  REQUIRE(failed_over);
  fleet.cluster().AwaitOk();
  CHECK(fleet.cluster().Masters().size() == 3);
  fleet.CheckSharing(8);
  fleet.CheckNothingBadRead();
}

}  // namespace fleet_hosts_test
