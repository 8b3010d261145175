// Compiles parked while another daemon of the fleet holds their lease
// (fleet_leases.h). One thread polls every parked key at an interval: once
// the artifact is in the store (the shared tier answers through it), the
// lease is gone (its holder failed or died: nobody renews it) or the
// wait's deadline has passed, the entry is resumed, on that thread, with
// what happened. A parked compile holds no compile worker and no thread.
//
// Why polling rather than a notification (Redis pub/sub or keyspace events):
// notifications need server configuration (notify-keyspace-events), are
// fire-and-forget (one lost in a failover or partition leaves a waiter until
// its deadline), and in a Cluster are broadcast to every node. A poll is a
// GET of the artifact (absent: a few bytes) and of the lease per waiting
// key, every interval; it sees a published artifact within one interval,
// survives failovers, and costs nothing while nobody waits.
//
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/fleet_leases.h"

namespace qdcache::engine {

class FleetWaits {
 public:
  enum class Outcome {
    kPublished,  // the artifact is in the store now
    kLeaseFree,  // nobody holds the lease and there is no artifact: compile here
    kTimedOut,   // the deadline passed (or the engine stops): compile here
  };
  using Clock = std::chrono::steady_clock;
  struct Entry {
    std::string key;
    Clock::time_point deadline;
    // Whether the artifact is stored now (reads the store, and through it
    // the shared tier).
    std::function<bool()> published;
    // True once nobody waits any more: the entry is dropped unresumed.
    std::function<bool()> abandoned;
    std::function<void(Outcome)> resume;  // called once, on the polling thread
  };

  // `leases` must outlive this object.
  FleetWaits(FleetLeases& leases, std::chrono::milliseconds interval);
  ~FleetWaits();  // Stop()s
  FleetWaits(const FleetWaits&) = delete;
  FleetWaits& operator=(const FleetWaits&) = delete;

  void Park(Entry entry);
  // Resumes every parked entry with kTimedOut and stops the thread; later
  // Parks resume at once with kTimedOut.
  void Stop();
  [[nodiscard]] std::size_t parked() const;

 private:
  void Loop();

  FleetLeases& leases_;
  const std::chrono::milliseconds interval_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Entry> entries_;  // guarded by mu_
  bool stopping_ = false;       // guarded by mu_
  std::thread thread_;
};

}  // namespace qdcache::engine
