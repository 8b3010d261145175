// Where the remote tier keeps its values: a key-value store shared by many
// daemons, reached over the network. A backend moves opaque bytes and nothing
// else; what the bytes mean (envelope, verification), when to stop calling a
// remote that fails (circuit breaker), read-only mode, TTL policy and
// counting are the tier's (remote_tier.h). The shipped backends are Redis
// standalone and Redis Cluster (remote_backend_factory.h).
//
// Keys and values are arbitrary bytes (NUL included). A value is stored and
// read back exactly as given.
//
// Results: a miss is not an error. Get answers std::nullopt for a key that
// holds nothing, a value for one that holds one, and a Status only when the
// remote could not answer the question. Every failure has one of two codes:
//   UNAVAILABLE          the remote is not serving us: it cannot be reached,
//                        a call timed out, the connection was lost, our
//                        credentials were refused, or it answered an error
//                        that holds for every command (loading, no AUTH, a
//                        cluster that is down, an error it does not know).
//                        The tier's breaker counts it.
//   FAILED_PRECONDITION  the remote works but refused this command alone
//                        (out of memory for a write, a key holding a value of
//                        another type). It must not open the breaker.
//
// Thread-safety: every method may be called concurrently, from any thread.
// Backends connect lazily: constructing one contacts nothing.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace qdcache::remote {

class RemoteBackend {
 public:
  virtual ~RemoteBackend() = default;

  // The value stored under `key`; std::nullopt when there is none.
  [[nodiscard]] virtual Expected<std::optional<std::string>> Get(std::string_view key) = 0;

  // The values of `keys`, one per key in the same order (std::nullopt for a
  // miss; a key holding a value of another type is a miss here). One round
  // trip per server involved: an empty `keys` contacts nothing. Either every
  // key is answered or the call fails as a whole.
  [[nodiscard]] virtual Expected<std::vector<std::optional<std::string>>> MultiGet(
      const std::vector<std::string>& keys) = 0;

  // Stores `value` under `key`, replacing what was there (its expiry
  // included). `ttl` > 0: the key expires after `ttl`; 0: it never expires.
  [[nodiscard]] virtual Status Put(std::string_view key, std::string value,
                                   std::chrono::seconds ttl) = 0;

  // Leases (fleet-wide single-flight, remote/fleet_leases.h): small keys
  // that expire by themselves, owned by whoever holds their value.
  //
  // Stores `value` under `key`, expiring after `ttl` (> 0), only when `key`
  // holds nothing: true when it was stored, false when `key` was taken.
  [[nodiscard]] virtual Expected<bool> PutIfAbsent(std::string_view key, std::string value,
                                                   std::chrono::milliseconds ttl) = 0;
  // When `key` holds exactly `value`: with `ttl` > 0 its expiry becomes
  // `ttl` from now, with `ttl` == 0 it is deleted. True when it held
  // `value`; false (and nothing changed) otherwise. Atomic on the remote.
  [[nodiscard]] virtual Expected<bool> UpdateIfEquals(std::string_view key, std::string_view value,
                                                      std::chrono::milliseconds ttl) = 0;

  // One round trip that says whether the remote serves us now (start-up and
  // recovery probes). Writes nothing.
  [[nodiscard]] virtual Status Ping() = 0;

  // What this backend talks to ("redis://127.0.0.1:6379"), for logs. Never
  // holds a credential.
  [[nodiscard]] virtual std::string Describe() const = 0;
};

}  // namespace qdcache::remote
