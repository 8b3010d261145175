// Remembers canonical IR digests by the raw request bytes, so a repeated
// request (a warm hit) is keyed without parsing its IR again; and computes
// each missing one once however many requests ask for it at the same time
// (N clients sending the same new kernel make one digest, not N in a row on
// the digest worker). Bounded; the least recently used entry goes first.
// Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/digest.h"
#include "common/expected.h"

namespace qdcache::engine {

class IrDigestMemo {
 public:
  // `on_follower_waits` (a test seam; may be empty) is called by each
  // FindOrCompute that is about to wait for another thread's computation,
  // while that computation cannot yet have published its result.
  explicit IrDigestMemo(std::size_t capacity, std::function<void()> on_follower_waits = nullptr)
      : capacity_(capacity), on_follower_waits_(std::move(on_follower_waits)) {}

  // The memo key for raw IR bytes under what canonicalization depends on.
  [[nodiscard]] static std::string RawKey(std::string_view ir, std::string_view target, bool keep_debug);

  [[nodiscard]] std::optional<Digest> Find(const std::string& raw_key);
  void Remember(const std::string& raw_key, const Digest& canonical);

  // The remembered digest, or `compute`'s result (remembered when OK). While
  // one thread computes a raw_key, others asking for it wait for that result
  // instead of computing it again; an error goes to all of them and is not
  // remembered.
  [[nodiscard]] Expected<Digest> FindOrCompute(const std::string& raw_key,
                                               const std::function<Expected<Digest>()>& compute);

 private:
  // One digest being computed, and its result once done.
  struct Pending {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;                                    // guarded by mu
    Expected<Digest> result = Internal("not computed");  // guarded by mu
  };
  using Order = std::list<std::string>;  // most recent first
  struct Entry {
    Digest digest;
    Order::iterator position;
  };
  const std::size_t capacity_;
  const std::function<void()> on_follower_waits_;
  std::mutex mu_;
  Order order_;                                     // guarded by mu_
  std::unordered_map<std::string, Entry> entries_;  // guarded by mu_
  std::unordered_map<std::string, std::shared_ptr<Pending>> pending_;  // guarded by mu_
};

}  // namespace qdcache::engine
