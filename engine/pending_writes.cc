#include "engine/pending_writes.h"

namespace qdcache::engine {

void PendingWrites::Begin(const std::vector<std::string>& keys) {
  if (keys.empty()) return;
  std::lock_guard lock(mu_);
  for (const std::string& key : keys) ++under_way_[key];
}

void PendingWrites::End(const std::vector<std::string>& keys) {
  if (keys.empty()) return;
  {
    std::lock_guard lock(mu_);
    for (const std::string& key : keys) {
      auto it = under_way_.find(key);
      if (it != under_way_.end() && --it->second == 0) under_way_.erase(it);
    }
  }
  ended_.notify_all();
}

void PendingWrites::AwaitNone(const std::string& key) {
  std::unique_lock lock(mu_);
  ended_.wait(lock, [&] { return !under_way_.contains(key); });
}

}  // namespace qdcache::engine
