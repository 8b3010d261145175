#include "engine/ir_digest_memo.h"

namespace qdcache::engine {

std::string IrDigestMemo::RawKey(std::string_view ir, std::string_view target, bool keep_debug) {
  Sha256Hasher h;
  h.UpdateField("qdcache-raw-ir");
  h.UpdateField(ir);
  h.UpdateField(target);
  h.UpdateU64(keep_debug);
  return DigestBytes(h.Finish());
}

std::optional<Digest> IrDigestMemo::Find(const std::string& raw_key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(raw_key);
  if (it == entries_.end()) return std::nullopt;
  order_.splice(order_.begin(), order_, it->second.position);
  return it->second.digest;
}

void IrDigestMemo::Remember(const std::string& raw_key, const Digest& canonical) {
  if (capacity_ == 0) return;
  std::lock_guard lock(mu_);
  auto it = entries_.find(raw_key);
  if (it != entries_.end()) {
    order_.splice(order_.begin(), order_, it->second.position);
    return;
  }
  order_.push_front(raw_key);
  entries_.emplace(raw_key, Entry{canonical, order_.begin()});
  if (entries_.size() > capacity_) {
    entries_.erase(order_.back());
    order_.pop_back();
  }
}

Expected<Digest> IrDigestMemo::FindOrCompute(const std::string& raw_key,
                                             const std::function<Expected<Digest>()>& compute) {
  std::shared_ptr<Pending> pending;
  bool leader = false;
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(raw_key);
    if (it != entries_.end()) {
      order_.splice(order_.begin(), order_, it->second.position);
      return it->second.digest;
    }
    auto [slot, inserted] = pending_.try_emplace(raw_key);
    if (inserted) slot->second = std::make_shared<Pending>();
    pending = slot->second;
    leader = inserted;
  }
  if (!leader) {
    std::unique_lock wait(pending->mu);
    if (on_follower_waits_ && !pending->done) on_follower_waits_();
    pending->cv.wait(wait, [&] { return pending->done; });
    return pending->result;
  }
  // Whatever happens in compute (an exception included), the waiters get an
  // answer and the raw key is free for the next request.
  Expected<Digest> result = Internal("IR digest computation failed");
  struct Publish {
    IrDigestMemo& memo;
    const std::string& raw_key;
    Pending& pending;
    const Expected<Digest>& result;
    ~Publish() {
      {
        std::lock_guard lock(memo.mu_);
        memo.pending_.erase(raw_key);
      }
      {
        std::lock_guard lock(pending.mu);
        pending.result = result;
        pending.done = true;
      }
      pending.cv.notify_all();
    }
  } publish{*this, raw_key, *pending, result};
  result = compute();
  if (result.ok()) Remember(raw_key, *result);
  return result;
}

}  // namespace qdcache::engine
