// Charges the compile-worker failures a peer causes to that peer: a call
// that crashed or hung its worker, ran it out of memory, was cancelled
// under it, or made it retire after refusing an input costs a new worker
// process. A peer that sends a stream of such inputs spends its budget and
// is then refused (RESOURCE_EXHAUSTED) whatever would need a worker, until
// the budget refills; what needs none (its hits) is still served, and other
// peers are not slowed by its respawns. Transport-free; thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/status.h"
#include "common/token_bucket.h"

namespace qdcache::engine {

struct FailureBudgetOptions {
  int burst = 30;  // failures a peer may cause at once; 0: no budget (never refused)
  std::chrono::milliseconds refill{200};  // one failure forgiven this often
};

class FailureBudget {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  // `clock` null: the steady clock.
  explicit FailureBudget(FailureBudgetOptions options, Clock clock = nullptr);

  // OK while `tenant` may cause another failure; RESOURCE_EXHAUSTED saying
  // when it may try again otherwise. Whether that refuses anything is the
  // caller's to say (and count): a hit needs no budget.
  // `retry_after` (may be null) gets how long until it may again (0 if OK).
  [[nodiscard]] Status Check(const std::string& tenant, std::chrono::milliseconds* retry_after = nullptr);
  // `tenant` caused `failures` worker failures.
  void Charge(const std::string& tenant, int failures = 1);

  // Failures charged so far.
  [[nodiscard]] std::uint64_t charged() const { return charged_.load(std::memory_order_relaxed); }
  void ResetStats();

 private:
  std::chrono::steady_clock::time_point Now() const;

  const FailureBudgetOptions options_;
  const Clock clock_;
  std::mutex mu_;
  // Peers with a budget not full; full ones are forgotten.
  std::unordered_map<std::string, TokenBucket> buckets_;  // guarded by mu_
  std::atomic<std::uint64_t> charged_{0};
};

}  // namespace qdcache::engine
