// Fleet-wide single-flight through real daemons with stores of their own and
// a real Redis: a cold stampede from every daemon compiles each kernel once
// across the fleet, a daemon whose lease holder dies compiles the kernel itself
// once the lease expires, and a read-only daemon never takes a lease.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "remote/remote_codec.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/log_watch.h"
#include "tests/support/redis_server.h"
#include "tests/support/redis_skip.h"
#include "tests/support/stampede.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace fleet_test {

constexpr const char* kPrefix = "fleet:";

std::string Dir(const TempDir& tmp, const std::string& name) {
  const std::string path = tmp / name;
  REQUIRE(::mkdir(path.c_str(), 0700) == 0);
  return path;
}

std::vector<std::string> FleetArgs(const std::string& url, std::vector<std::string> extra = {}) {
  // A generous timeout: a lease call that timed out would compile without
  // one, and the counts below are exact.
  std::vector<std::string> args = {"--remote", url, "--workers", "2", "--remote-backoff", "200ms",
                                   "--remote-timeout", "2s"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// A Redis in a scratch directory, and the URL daemons reach it by.
struct SharedRedis {
  SharedRedis() : redis(Dir(tmp, "redis")) { redis.Start(); }
  std::string Url() const { return "redis://" + redis.endpoint().ToString() + "/" + kPrefix; }
  TempDir tmp;
  RedisServer redis;
};

TEST_CASE("a cold stampede from three daemons sharing a Redis compiles each kernel once across the fleet",
          "[integration][remote][fleet]") {
  if (SkipWithoutRedis("fleet single-flight")) return;
  SharedRedis shared;
  const TempDir& tmp = shared.tmp;
  RedisServer& redis = shared.redis;
  const std::string url = shared.Url();
  DaemonProcess a(Dir(tmp, "a"), FleetArgs(url)), b(Dir(tmp, "b"), FleetArgs(url)),
      c(Dir(tmp, "c"), FleetArgs(url));
  a.Start();
  b.Start();
  c.Start();
  constexpr int kKernels = 40;
  const StampedeResult s = RunStampede({&a, &b, &c}, 8, kKernels);
  INFO(s.first_failure);
  CHECK(s.failures == 0);
  REQUIRE(s.payloads.size() == kKernels);
  for (const auto& [n, payloads] : s.payloads) {
    INFO("kernel " << n);
    CHECK(payloads.size() == 1);  // every client got the same bytes
  }
  std::uint64_t compiles = 0, leases = 0, waits = 0, served = 0, timeouts = 0;
  for (DaemonProcess* d : {&a, &b, &c}) {
    const v1::Stats st = StatsOf(*d);
    compiles += st.compiles();
    leases += st.fleet_leases();
    waits += st.fleet_waits();
    served += st.fleet_wait_hits();
    timeouts += st.fleet_wait_timeouts();
  }
  CHECK(compiles == kKernels);
  CHECK(leases == kKernels);
  CHECK(timeouts == 0);
  CHECK(served <= waits);
  // Every lease was released: none is left in Redis.
  CHECK(KeysOn({&redis}, std::string(kPrefix) + "v1:lease:*").empty());
  const RunResult text = Run({CliBinary(), "--socket", a.socket_path(), "stats"});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("fleet single-flight") && Catch::Contains("leases taken"));
}

TEST_CASE("when the daemon holding a lease dies mid-compile, a waiting daemon compiles once the lease expires",
          "[integration][remote][fleet]") {
  if (SkipWithoutRedis("fleet single-flight")) return;
  SharedRedis shared;
  const TempDir& tmp = shared.tmp;
  const std::string url = shared.Url();
  DaemonProcess holder(Dir(tmp, "holder"), FleetArgs(url, {"--remote-lease", "6s"}));  // 3 x the 2s timeout
  DaemonProcess waiter(Dir(tmp, "waiter"), FleetArgs(url, {"--remote-lease", "6s"}));
  holder.Start();
  waiter.Start();
  const v1::KernelDescriptor slow = SlowCpuKernel(20000, "fleet_slow");  // seconds of compiling
  const std::size_t holder_mark = FileSize(holder.log_path());

  std::jthread doomed([&] {
    try {
      (void)CompileOne(*holder.Connect(), slow);
    } catch (const std::exception&) {
      // The daemon is killed under it: the call fails, as it should.
    }
  });
  REQUIRE(WaitForLogText(holder.log_path(), holder_mark, "fleet: took the lease of", holder.pid()));
  v1::CompileResult survivor;
  const std::size_t mark = FileSize(waiter.log_path());
  std::jthread survivor_thread([&] { survivor = CompileOne(*waiter.Connect(), slow); });
  REQUIRE(WaitForLogText(waiter.log_path(), mark, "waiting for its artifact", waiter.pid()));
  holder.Kill();
  doomed.join();
  survivor_thread.join();
  INFO(survivor.error().message());
  CHECK(survivor.status() == v1::CACHE_STATUS_COMPILED);
  const v1::Stats st = StatsOf(waiter);
  CHECK(st.fleet_waits() == 1);
  CHECK(st.fleet_wait_timeouts() == 0);  // it did not wait out its limit (compile timeout + lease)
  CHECK(st.fleet_wait_orphans() == 1);   // the lease expired without an artifact: compiled here
  CHECK(st.compiles() == 1);
}

TEST_CASE("a read-only daemon takes no lease and compiles what it misses itself", "[integration][remote][fleet]") {
  if (SkipWithoutRedis("fleet single-flight")) return;
  SharedRedis shared;
  const TempDir& tmp = shared.tmp;
  RedisServer& redis = shared.redis;
  const std::string url = shared.Url();
  DaemonProcess reader(Dir(tmp, "reader"), FleetArgs(url, {"--remote-read-only"}));
  reader.Start();
  for (int n = 0; n < 3; ++n) CHECK(CompileOne(*reader.Connect(), StampedeKernel(n)).status() == v1::CACHE_STATUS_COMPILED);
  const v1::Stats st = StatsOf(reader);
  CHECK(st.fleet_leases() == 0);
  CHECK(st.fleet_waits() == 0);
  CHECK(redis.Command({"DBSIZE"}).integer == 0);  // no lease, no value: nothing written
}

}  // namespace fleet_test
