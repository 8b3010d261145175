// A map that keeps at most `capacity` entries, dropping the least recently
// used (found or put) first. Not thread-safe: its owner locks.
#pragma once

#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

namespace qdcache {

template <typename V>
class LruMap {
 public:
  explicit LruMap(std::size_t capacity) : capacity_(capacity) {}

  // The value under `key` (now the most recent), or null.
  [[nodiscard]] V* Find(const std::string& key) {
    auto it = entries_.find(key);
    if (it == entries_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second.position);
    return &it->second.value;
  }

  // Stores `value` under `key` (the most recent), dropping the oldest entry
  // when full. Returns the stored value.
  V& Put(const std::string& key, V value) {
    if (V* found = Find(key)) return *found = std::move(value);
    if (capacity_ == 0) {
      spare_ = std::move(value);
      return spare_;
    }
    if (entries_.size() >= capacity_) {
      entries_.erase(order_.back());
      order_.pop_back();
    }
    order_.push_front(key);
    return entries_.emplace(key, Entry{std::move(value), order_.begin()}).first->second.value;
  }

  [[nodiscard]] std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    V value;
    std::list<std::string>::iterator position;
  };
  const std::size_t capacity_;
  std::list<std::string> order_;  // most recent first
  std::unordered_map<std::string, Entry> entries_;
  V spare_{};  // what Put returns when nothing is kept (capacity 0)
};

}  // namespace qdcache
