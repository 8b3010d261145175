// Parked compiles (engine/fleet_waits.h) over an in-memory lease table: each
// entry is resumed once, with what happened, by the polling thread.
#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <mutex>
#include <set>

#include "engine/fleet_waits.h"

using namespace qdcache::engine;
using namespace std::chrono_literals;

namespace {

class TableLeases final : public FleetLeases {
 public:
  Claim Acquire(const std::string& key) override {
    std::lock_guard lock(mu_);
    return held_.insert(key).second ? Claim::kOwned : Claim::kHeld;
  }
  void Release(const std::string& key) override {
    std::lock_guard lock(mu_);
    held_.erase(key);
  }
  bool Held(const std::string& key) override {
    std::lock_guard lock(mu_);
    return held_.count(key) > 0;
  }

 private:
  std::mutex mu_;
  std::set<std::string> held_;
};

struct Outcomes {
  std::mutex mu;
  std::set<std::string> published;  // keys whose artifact "is stored"
  std::promise<FleetWaits::Outcome> outcome;
};

FleetWaits::Entry EntryFor(const std::string& key, Outcomes& o, FleetWaits::Clock::time_point deadline,
                           std::function<bool()> abandoned = [] { return false; }) {
  FleetWaits::Entry e;
  e.key = key;
  e.deadline = deadline;
  e.published = [&o, key] {
    std::lock_guard lock(o.mu);
    return o.published.count(key) > 0;
  };
  e.abandoned = std::move(abandoned);
  e.resume = [&o](FleetWaits::Outcome outcome) { o.outcome.set_value(outcome); };
  return e;
}

FleetWaits::Outcome Await(Outcomes& o) {
  std::future<FleetWaits::Outcome> f = o.outcome.get_future();
  REQUIRE(f.wait_for(30s) == std::future_status::ready);  // a bound on a hang, not a timing
  return f.get();
}

const auto kFar = [] { return FleetWaits::Clock::now() + 1h; };

}  // namespace

TEST_CASE("a parked compile resumes once its artifact is published", "[engine][fleet]") {
  TableLeases leases;
  REQUIRE(leases.Acquire("k") == FleetLeases::Claim::kOwned);  // another daemon compiles it
  FleetWaits waits(leases, 5ms);
  Outcomes o;
  waits.Park(EntryFor("k", o, kFar()));
  {
    std::lock_guard lock(o.mu);
    o.published.insert("k");
  }
  CHECK(Await(o) == FleetWaits::Outcome::kPublished);
  CHECK(waits.parked() == 0);
}

TEST_CASE("a parked compile resumes when the lease ends without an artifact", "[engine][fleet]") {
  TableLeases leases;
  REQUIRE(leases.Acquire("k") == FleetLeases::Claim::kOwned);
  FleetWaits waits(leases, 5ms);
  Outcomes o;
  waits.Park(EntryFor("k", o, kFar()));
  leases.Release("k");  // its holder failed, or died and the lease expired
  CHECK(Await(o) == FleetWaits::Outcome::kLeaseFree);
}

TEST_CASE("a parked compile whose lease stays held resumes at its deadline", "[engine][fleet]") {
  TableLeases leases;
  REQUIRE(leases.Acquire("k") == FleetLeases::Claim::kOwned);
  FleetWaits waits(leases, 5ms);
  Outcomes o;
  waits.Park(EntryFor("k", o, FleetWaits::Clock::now()));
  CHECK(Await(o) == FleetWaits::Outcome::kTimedOut);
}

TEST_CASE("an abandoned entry is dropped unresumed, and Stop resumes the rest as timed out", "[engine][fleet]") {
  TableLeases leases;
  REQUIRE(leases.Acquire("a") == FleetLeases::Claim::kOwned);
  REQUIRE(leases.Acquire("b") == FleetLeases::Claim::kOwned);
  FleetWaits waits(leases, 1h);  // never polls within the test
  Outcomes gone, waiting;
  bool resumed_gone = false;
  FleetWaits::Entry abandoned = EntryFor("a", gone, kFar(), [] { return true; });
  abandoned.resume = [&](FleetWaits::Outcome) { resumed_gone = true; };
  waits.Park(std::move(abandoned));
  waits.Park(EntryFor("b", waiting, kFar()));
  CHECK(waits.parked() == 2);
  waits.Stop();
  CHECK(Await(waiting) == FleetWaits::Outcome::kTimedOut);
  CHECK_FALSE(resumed_gone);
  // Parked after Stop: resumed at once.
  Outcomes late;
  waits.Park(EntryFor("c", late, kFar()));
  CHECK(Await(late) == FleetWaits::Outcome::kTimedOut);
}
