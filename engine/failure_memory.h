// Remembers inputs whose compile killed a worker (crash, time limit, memory
// limit) so that a client's retry loop gets the same answer at once instead
// of grinding the worker pool. Keyed by artifact key (or raw-IR key for a
// digest that crashed); entries expire after a TTL; bounded, oldest first
// out. Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/status.h"

namespace qdcache::engine {

class FailureMemory {
 public:
  using Clock = std::chrono::steady_clock;

  // `ttl` 0 disables remembering.
  FailureMemory(std::chrono::seconds ttl, std::size_t capacity,
                std::function<Clock::time_point()> now = Clock::now);

  // True for failures worth remembering: those that cost a worker
  // (INTERNAL, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED).
  [[nodiscard]] static bool Worth(const Status& failure);

  // Remembers `failure` for `key` if Worth(failure).
  void Remember(const std::string& key, const Status& failure);

  // The remembered failure, its message extended with how long ago it
  // happened and for how long it is still answered from memory.
  [[nodiscard]] std::optional<Status> Find(const std::string& key);

  [[nodiscard]] std::size_t size();

 private:
  struct Entry {
    Status failure;
    Clock::time_point at;
  };
  void DropExpired(Clock::time_point now);  // needs mu_

  const std::chrono::seconds ttl_;
  const std::size_t capacity_;
  const std::function<Clock::time_point()> now_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;  // guarded by mu_
  std::deque<std::pair<std::string, Clock::time_point>> order_;  // oldest first; guarded by mu_
};

}  // namespace qdcache::engine
