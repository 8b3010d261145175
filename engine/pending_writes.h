// Store writes under way, by key: a reader of such a key waits until its
// write has ended, so that a write made after the answers it belongs to
// (a compile's stage outputs, engine.cc) is still found by every request
// that those answers let through. Thread-safe.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace qdcache::engine {

class PendingWrites {
 public:
  // `keys` are being written; the same key may be under way more than once.
  void Begin(const std::vector<std::string>& keys);
  // Their writes ended (stored or failed): readers go on.
  void End(const std::vector<std::string>& keys);
  // Returns once no write of `key` is under way.
  void AwaitNone(const std::string& key);

 private:
  std::mutex mu_;
  std::condition_variable ended_;
  std::unordered_map<std::string, int> under_way_;  // guarded by mu_
};

}  // namespace qdcache::engine
