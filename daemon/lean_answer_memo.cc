#include "daemon/lean_answer_memo.h"

#include <unistd.h>

#include "lean/lookup_wire.h"

namespace qdcache::daemon {
namespace {

// What an entry costs beyond its bytes: the list node, the index slot and
// the answer's own members, roughly.
constexpr std::uint64_t kEntryOverhead = 256;

std::uint64_t CostOf(const std::string& key, const LeanAnswer& answer) {
  std::uint64_t bytes =
      kEntryOverhead + key.size() + answer.header.size() + answer.rest.capacity() + answer.memfd_bytes;
  if (answer.replay != nullptr) {
    for (const std::string& k : answer.replay->artifact_keys) bytes += k.size() + sizeof(std::string);
    bytes += answer.replay->compile_micros.size() * sizeof(std::uint64_t);
  }
  return bytes;
}

}  // namespace

LeanAnswer::~LeanAnswer() {
  if (memfd >= 0) ::close(memfd);
}

std::optional<std::string> LeanAnswerMemo::KeyOf(std::uint32_t uid, std::string_view body,
                                                  std::string_view* client) {
  std::string key(reinterpret_cast<const char*>(&uid), sizeof uid);
  Expected<std::string_view> name = lean::AppendWithoutClientName(body, &key);
  if (!name.ok()) return std::nullopt;
  *client = *name;
  return key;
}

bool LeanAnswerMemo::MayKeep(std::size_t request_bytes) const {
  return kEntryOverhead + sizeof(std::uint32_t) + request_bytes <= max_bytes_;
}

bool LeanAnswerMemo::SeeLocked(std::uint64_t generation) {
  if (generation < generation_) return false;
  if (generation > generation_) {  // the store changed: nothing kept can be served again
    order_.clear();
    index_.clear();
    bytes_ = 0;
    memfds_ = 0;
    generation_ = generation;
  }
  return true;
}

std::shared_ptr<const LeanAnswer> LeanAnswerMemo::Find(const std::string& key, std::uint64_t generation) {
  std::lock_guard lock(mu_);
  if (!SeeLocked(generation)) return nullptr;
  const auto found = index_.find(key);
  if (found == index_.end()) return nullptr;
  order_.splice(order_.begin(), order_, found->second);
  return found->second->answer;
}

void LeanAnswerMemo::Put(std::string key, std::uint64_t generation, std::shared_ptr<const LeanAnswer> answer) {
  const std::uint64_t cost = CostOf(key, *answer);
  const bool memfd = answer->memfd >= 0;
  std::lock_guard lock(mu_);
  if (!SeeLocked(generation)) return;
  if (const auto found = index_.find(key); found != index_.end()) EraseLocked(found->second);
  if (cost > max_bytes_) return;
  while (!order_.empty() && bytes_ + cost > max_bytes_) EraseLocked(std::prev(order_.end()));
  if (memfd && memfds_ >= kMaxMemfds) {  // the least recently used that holds one
    for (auto it = std::prev(order_.end());; --it) {
      if (it->answer->memfd >= 0) {
        EraseLocked(it);
        break;
      }
    }
  }
  order_.push_front(Entry{std::move(key), std::move(answer), cost});
  index_.emplace(order_.front().key, order_.begin());
  bytes_ += cost;
  memfds_ += memfd ? 1 : 0;
}

void LeanAnswerMemo::EraseLocked(Order::iterator it) {
  index_.erase(it->key);
  bytes_ -= it->bytes;
  memfds_ -= it->answer->memfd >= 0 ? 1 : 0;
  order_.erase(it);
}

std::uint64_t LeanAnswerMemo::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

std::size_t LeanAnswerMemo::size() const {
  std::lock_guard lock(mu_);
  return order_.size();
}

}  // namespace qdcache::daemon
