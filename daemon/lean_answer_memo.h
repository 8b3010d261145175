// Lean Lookup answers kept to be served again (LeanServer). A warm start
// asks for the same kernels every time its program starts; while nothing
// it read has changed in the store, the answer it got last time is the answer, so
// it is sent again as it was sent: the same bytes and the same sealed memfd
// (immutable, so sending it twice cannot differ from writing it twice).
//
// What may be kept: an answer whose every item was a hit (a miss may be a
// hit later, in the remote tier for one), made between two equal readings
// of Engine::LookupGeneration. Kept under the peer's uid and the request's
// bytes less the client's name (lean::AppendWithoutClientName), so a
// different request, or the same from another user, never finds it, while
// the same request from another program of the user (another name in the
// log) does. Every kept answer was made under the newest generation seen:
// a newer one drops them all at once (none can be served again). Bounded
// in bytes (the request, the answer, its memfd's payloads) and in memfds
// held (kMaxMemfds: file descriptors are the daemon's to budget), least
// recently used out first. Thread-safe.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace qdcache::daemon {

// What serving an all-hit answer again counts (Engine::ReplayAliasHits):
// the artifact each item served and its record's compile time.
struct LeanReplay {
  std::vector<std::string> artifact_keys;
  std::vector<std::uint64_t> compile_micros;
};

// A Lookup answer as sent: the reply header, what follows it on the
// socket, and the memfd passed with the header (-1: none; closed with the
// answer).
struct LeanAnswer {
  std::string header;  // sent alone with the memfd; empty without one, `rest` then leads with it
  std::string rest;
  int memfd = -1;
  std::uint64_t memfd_bytes = 0;
  std::shared_ptr<const LeanReplay> replay;  // set when it may be kept

  LeanAnswer() = default;
  LeanAnswer(const LeanAnswer&) = delete;
  LeanAnswer& operator=(const LeanAnswer&) = delete;
  ~LeanAnswer();
};

class LeanAnswerMemo {
 public:
  static constexpr std::size_t kMaxMemfds = 64;

  explicit LeanAnswerMemo(std::uint64_t max_bytes) : max_bytes_(max_bytes) {}

  // The key of a Lookup request from the peer with this uid: the uid and
  // the request's body less its client's name (lean::AppendWithoutClientName),
  // and that name in `*client` (a view into `body`). Nullopt when the body
  // is not a message (nothing is kept for it).
  [[nodiscard]] static std::optional<std::string> KeyOf(std::uint32_t uid, std::string_view body,
                                                        std::string_view* client);

  // Whether a request of this many bytes (its body) could be kept at all:
  // the caller builds no key otherwise.
  [[nodiscard]] bool MayKeep(std::size_t request_bytes) const;
  // The answer kept under `key` if it was made under `generation`; null
  // otherwise (and a newer generation drops every answer kept).
  [[nodiscard]] std::shared_ptr<const LeanAnswer> Find(const std::string& key, std::uint64_t generation);
  // Keeps `answer` (whose replay is set), made under `generation`, under
  // `key`, replacing what was there, and drops the least recently used
  // beyond the budget; an answer larger than the whole budget, or made
  // under an older generation than one already seen, is not kept.
  void Put(std::string key, std::uint64_t generation, std::shared_ptr<const LeanAnswer> answer);

  [[nodiscard]] std::uint64_t bytes() const;
  [[nodiscard]] std::size_t size() const;

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const LeanAnswer> answer;
    std::uint64_t bytes;
  };
  using Order = std::list<Entry>;  // most recently used first
  void EraseLocked(Order::iterator it);
  // Drops everything when `generation` is newer than the one seen (so every
  // entry is always of generation_); false when it is older (an answer
  // made before a change).
  bool SeeLocked(std::uint64_t generation);

  const std::uint64_t max_bytes_;
  mutable std::mutex mu_;
  Order order_;                                                 // guarded by mu_
  std::unordered_map<std::string_view, Order::iterator> index_;  // keys point into order_; guarded by mu_
  std::uint64_t bytes_ = 0;                                     // guarded by mu_
  std::size_t memfds_ = 0;                                      // entries holding one; guarded by mu_
  std::uint64_t generation_ = 0;                                // the newest seen; guarded by mu_
};

}  // namespace qdcache::daemon
