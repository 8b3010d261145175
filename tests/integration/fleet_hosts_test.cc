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
  return false;
}

class Fleet {
 public:
  Fleet() : net_({"redis", "h1", "h2", "h3"}), redis_(Dir("redis")) {
    redis_.set_network(net_.NamespacePath("redis"), net_.Address("redis"));
    redis_.Start();
    const std::string keys = Dir("keys");
    Expected<signing::SigningKey> key = signing::SigningKey::Generate();
    REQUIRE(key.ok());
    REQUIRE(signing::WriteNewKeyPair(*key, keys + "/fleet.pem").ok());
    const std::string url = "redis://" + redis_.endpoint().ToString() + "/fleet:";
    for (const std::string& host : kDaemonHosts) {
      auto d = std::make_unique<DaemonProcess>(
          Dir(host), std::vector<std::string>{"--remote", url, "--workers", "2", "--remote-timeout", "200ms",
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
  RedisServer& redis() { return redis_; }

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
  // Sharing works again: a kernel compiled on h1 is an alias hit on every other host.
  void CheckSharing(int salt) {
    REQUIRE(CompileOne(*daemons_[0]->Connect(), StampedeKernel(0, salt)).status() == v1::CACHE_STATUS_COMPILED);
    for (std::size_t i = 1; i < daemons_.size(); ++i) {
      INFO("host h" << i + 1);
      CHECK(LookupOne(*daemons_[i], StampedeKernel(0, salt)).status() == v1::CACHE_STATUS_ALIAS_HIT);
    }
  }

 private:
  std::string Dir(const std::string& name) {
    const std::string path = tmp_ / name;
    REQUIRE(::mkdir(path.c_str(), 0700) == 0);
    return path;
  }

  TempDir tmp_;
  VirtualNetwork net_;
  RedisServer redis_;
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

TEST_CASE("three hosts on a virtual network compile each of 40 cold kernels once across the fleet, and take "
          "over the compile of a host that dies holding its lease",
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
  std::jthread doomed([&] {
    try {
      (void)CompileOne(*fleet.daemon(0).Connect(), slow);
    } catch (const std::exception&) {
      // killed under the call
    }
  });
  REQUIRE(WaitForLogText(fleet.daemon(0).log_path(), 0, "fleet: took the lease of", fleet.daemon(0).pid()));
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
  CHECK(h2.fleet_waits() >= 1);
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

}  // namespace fleet_hosts_test
