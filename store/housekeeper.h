// The store's background thread: persists batched access times every flush
// interval and runs eviction passes on request, and lets writers wait for a
// pass (backpressure). Internal to the store; knows nothing of RocksDB.
//
// Both jobs run on this one thread, so a pass never races the timed flush,
// and each pass is preceded by a flush.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace qdcache::store {

class Housekeeper {
 public:
  struct Jobs {
    std::function<void()> flush_access_times;
    std::function<void()> eviction_pass;
  };

  // Starts the thread. flush_interval <= 0: flush only before passes and on
  // Stop. The jobs must stay callable until Stop returns.
  Housekeeper(std::chrono::milliseconds flush_interval, Jobs jobs);
  ~Housekeeper();  // Stop()
  Housekeeper(const Housekeeper&) = delete;
  Housekeeper& operator=(const Housekeeper&) = delete;

  // Asks for a pass and returns at once.
  void RequestPass();
  // Asks for a pass and waits until one that started after this call has
  // finished (or the housekeeper is stopping). Any thread but this one's own.
  void RequestPassAndWait();

  // Releases waiters, runs a final access-time flush and joins. Idempotent.
  void Stop();

 private:
  void Run();

  const std::chrono::milliseconds flush_interval_;
  const Jobs jobs_;
  std::mutex mu_;
  std::condition_variable wake_;       // to the thread: a pass was requested, or stop
  std::condition_variable pass_done_;  // to waiters: completed_ advanced, or stop
  std::uint64_t requested_ = 0;        // passes asked for; mu_
  std::uint64_t completed_ = 0;        // requests covered by finished passes; mu_
  bool stopping_ = false;              // mu_
  std::thread thread_;
};

}  // namespace qdcache::store
