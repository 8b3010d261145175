// The background thread's contract: flush before every pass, waiters released
// only by a pass, a final flush on stop. And the access clock's ordering.
#include "store/housekeeper.h"

#include <catch2/catch.hpp>
#include <mutex>
#include <string>

#include "store/access_tracker.h"

namespace qdcache::store {
namespace {

using namespace std::chrono_literals;

// Records the order in which the housekeeper runs its jobs.
class JobLog {
 public:
  Housekeeper::Jobs Jobs() {
    return {[this] { Append('F'); }, [this] { Append('P'); }};
  }
  std::string Get() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }

 private:
  void Append(char c) {
    std::lock_guard<std::mutex> lock(mu_);
    log_.push_back(c);
  }
  std::mutex mu_;
  std::string log_;
};

TEST_CASE("a waiting writer returns only after a pass, and every pass follows a flush",
          "[store][housekeeper]") {
  JobLog log;
  Housekeeper keeper(0ms, log.Jobs());
  keeper.RequestPassAndWait();
  CHECK(log.Get() == "FP");
  keeper.RequestPassAndWait();
  CHECK(log.Get() == "FPFP");
}

TEST_CASE("stopping runs one last flush, and stopping again does nothing", "[store][housekeeper]") {
  JobLog log;
  {
    Housekeeper keeper(0ms, log.Jobs());
    keeper.Stop();
    CHECK(log.Get() == "F");
    keeper.Stop();  // idempotent; the destructor calls it again
  }
  CHECK(log.Get() == "F");
}

TEST_CASE("a wait after stop returns at once", "[store][housekeeper]") {
  JobLog log;
  Housekeeper keeper(0ms, log.Jobs());
  keeper.Stop();
  keeper.RequestPassAndWait();
  CHECK(log.Get() == "F");
}

TEST_CASE("access ticks strictly increase even when the wall clock steps back", "[store][access]") {
  auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1'000'000));
  AccessClock clock([&now] { return now; });
  const std::uint64_t t1 = clock.Tick();
  CHECK(t1 == 1'000'000'000'000ull);
  const std::uint64_t t2 = clock.Tick();  // same wall time
  CHECK(t2 == t1 + 1);
  now -= std::chrono::seconds(10);
  CHECK(clock.Tick() == t2 + 1);
  clock.AdvancePast(5'000'000'000'000ull);
  CHECK(clock.Tick() == 5'000'000'000'001ull);
  now += std::chrono::hours(24 * 365);
  CHECK(clock.Tick() == clock.NowMicros());
}

TEST_CASE("the access tracker keeps the latest access per entry until taken", "[store][access]") {
  AccessTracker tracker;
  tracker.Record(EntryKind::kArtifact, "k", 10);
  tracker.Record(EntryKind::kArtifact, "k", 30);
  tracker.Record(EntryKind::kArtifact, "k", 20);
  tracker.Record(EntryKind::kStage, "k", 5);
  auto taken = tracker.TakeAll();
  REQUIRE(taken.size() == 2);
  for (const auto& a : taken) {
    CHECK(a.key == "k");
    CHECK(a.tick == (a.kind == EntryKind::kArtifact ? 30u : 5u));
  }
  CHECK(tracker.TakeAll().empty());
}

}  // namespace
}  // namespace qdcache::store
