// The Redis commands the two Redis backends (redis_backend.h,
// redis_cluster_backend.h) send, and how their replies become the results of
// the RemoteBackend contract (remote_backend.h). The wire format is shared by
// every daemon version using one Redis: GET / MGET to read, "SET key value
// [EX ttl]" to write, plain string values; leases with "SET key value NX PX
// ms" and a compare-and-update script (EVAL, one key: Cluster routes it).
//
// Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "remote/redis_connection.h"
#include "remote/redis_url.h"

namespace qdcache::remote {

// "SET key value" with "EX ttl" when `ttl` > 0.
[[nodiscard]] std::vector<std::string> SetCommand(std::string_view key, std::string value,
                                                  std::chrono::seconds ttl);
// "MGET key..." for every key of `keys`.
[[nodiscard]] std::vector<std::string> MGetCommand(const std::vector<std::string>& keys);

// "SET key value NX PX ms": PutIfAbsent.
[[nodiscard]] std::vector<std::string> SetIfAbsentCommand(std::string_view key, std::string value,
                                                          std::chrono::milliseconds ttl);
// An EVAL of a script that, when `key` holds `value`, sets its expiry to
// `ttl` (> 0) or deletes it (0), answering 1, else 0: UpdateIfEquals.
[[nodiscard]] std::vector<std::string> UpdateIfEqualsCommand(std::string_view key, std::string_view value,
                                                             std::chrono::milliseconds ttl);
// The answer to SET ... NX (OK: stored, nil: taken) or to the script (1 / 0).
[[nodiscard]] Expected<bool> ConditionalResult(std::string_view source, const Reply& reply);

// A Redis error reply as a Status: UNAVAILABLE when it means the remote is
// down for every command (NOAUTH, LOADING, CLUSTERDOWN, a MOVED from a
// cluster node reached as standalone, ...), FAILED_PRECONDITION when it
// concerns this command only (OOM, WRONGTYPE).
[[nodiscard]] Status ReplyError(const Endpoint& node, const Reply& reply);

// A failure from the connection layer in the backend contract's two codes:
// FAILED_PRECONDITION stays, every other failure (DEADLINE_EXCEEDED on a
// timeout, PERMISSION_DENIED for refused credentials, ...) becomes
// UNAVAILABLE with its message. OK stays OK.
[[nodiscard]] Status AsBackendStatus(const Status& status);

// The answer to a GET (error replies already turned into a Status): a bulk
// string is the value, nil a miss. `source` ("redis HOST:PORT") names the
// server in the message of a reply that is neither.
[[nodiscard]] Expected<std::optional<std::string>> GetResult(std::string_view source, Reply reply);
// The answer to an MGET of `count` keys: one value or miss per key (nil, or
// a key holding another type).
[[nodiscard]] Expected<std::vector<std::optional<std::string>>> MGetResult(std::string_view source,
                                                                           Reply reply,
                                                                           std::size_t count);

}  // namespace qdcache::remote
