// An in-memory RemoteBackend (remote/remote_backend.h) for unit tests of what
// sits above a backend (the tier, the tiered store). It keeps the contract as
// the Redis backends do, which the shared conformance suite checks
// (tests/support/remote_backend_conformance.h), and lets a test make the
// remote fail. Keys never expire: the TTL a key was written with is recorded
// for the test to read.
//
// Thread-safe: every method may be called concurrently.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "remote/remote_backend.h"

namespace qdcache::remote::testing {

class MemoryBackend final : public RemoteBackend {
 public:
  [[nodiscard]] Expected<std::optional<std::string>> Get(std::string_view key) override;
  [[nodiscard]] Expected<std::vector<std::optional<std::string>>> MultiGet(
      const std::vector<std::string>& keys) override;
  [[nodiscard]] Status Put(std::string_view key, std::string value,
                           std::chrono::seconds ttl) override;
  [[nodiscard]] Expected<bool> PutIfAbsent(std::string_view key, std::string value,
                                           std::chrono::milliseconds ttl) override;
  [[nodiscard]] Expected<bool> UpdateIfEquals(std::string_view key, std::string_view value,
                                              std::chrono::milliseconds ttl) override;
  [[nodiscard]] Status Ping() override;
  [[nodiscard]] std::string Describe() const override { return "memory"; }

  // From now on every call answers `failure` (OK: calls work again):
  // UNAVAILABLE plays a remote that is down, FAILED_PRECONDITION one that
  // refuses each command.
  void FailEveryCall(Status failure);
  // A value of another type under `key`, as a Redis list: Get on it is
  // FAILED_PRECONDITION (WRONGTYPE), MultiGet misses it (MGET's nil).
  void StoreWrongType(const std::string& key);
  // Stores `value` under `key` directly (no call counted, no TTL).
  void Set(const std::string& key, std::string value);
  [[nodiscard]] std::optional<std::string> Value(const std::string& key) const;
  // Drops `key` (no call counted): a lease that expired.
  void Remove(const std::string& key);
  // As the Redis TTL command answers: the TTL written, -1 for none, -2 when
  // there is no key.
  [[nodiscard]] long long TtlSeconds(const std::string& key) const;
  [[nodiscard]] std::size_t size() const;
  // Replaces what this backend holds with what `other` holds.
  void CopyFrom(const MemoryBackend& other);
  // Calls made through the RemoteBackend interface, failed ones included.
  [[nodiscard]] int calls() const;

 private:
  struct Entry {
    std::string value;
    std::chrono::seconds ttl{0};
    bool wrong_type = false;
  };
  // Counts a call; its failure, if one is set.
  Status Begin();

  mutable std::mutex mu_;
  std::map<std::string, Entry, std::less<>> entries_;  // guarded by mu_
  Status failure_;                                     // guarded by mu_
  int calls_ = 0;                                      // guarded by mu_
};

}  // namespace qdcache::remote::testing
