// Remembers canonical IR digests by the raw request bytes, so a repeated
// request (a warm hit) is keyed without parsing its IR again. Bounded; the
// least recently used entry goes first. Thread-safe.
#pragma once

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/digest.h"

namespace qdcache::daemon {

class IrDigestMemo {
 public:
  explicit IrDigestMemo(std::size_t capacity) : capacity_(capacity) {}

  // The memo key for raw IR bytes under what canonicalization depends on.
  [[nodiscard]] static std::string RawKey(std::string_view ir, std::string_view target, bool keep_debug);

  [[nodiscard]] std::optional<Digest> Find(const std::string& raw_key);
  void Remember(const std::string& raw_key, const Digest& canonical);

 private:
  using Order = std::list<std::string>;  // most recent first
  struct Entry {
    Digest digest;
    Order::iterator position;
  };
  const std::size_t capacity_;
  std::mutex mu_;
  Order order_;                                     // guarded by mu_
  std::unordered_map<std::string, Entry> entries_;  // guarded by mu_
};

}  // namespace qdcache::daemon
