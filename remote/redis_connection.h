// One blocking connection to one Redis node (hiredis), with per-operation
// timeouts and optional AUTH. Not thread-safe: one thread uses a connection
// at a time (node_pool.h hands them out).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/expected.h"
#include "remote/redis_url.h"

struct redisContext;

namespace qdcache::remote {

struct ConnectOptions {
  std::chrono::milliseconds connect_timeout{200};
  std::chrono::milliseconds op_timeout{200};  // each command's send and reply
  std::string username;  // ACL user; empty: AUTH with the password alone
  std::string password;  // empty: no AUTH. Never logged nor put in a Status.
};

// A Redis reply. Error replies ("-MOVED ...", "-ERR ...") are replies of type
// kError, not failures: the caller decides (redirects are interpreted by the
// cluster router).
struct Reply {
  enum class Type { kString, kStatus, kError, kInteger, kNil, kArray };
  Type type = Type::kNil;
  std::string str;  // kString, kStatus, kError
  long long integer = 0;
  std::vector<Reply> elements;  // kArray

  [[nodiscard]] bool is_error() const { return type == Type::kError; }
};

class RedisConnection {
 public:
  // Connects and authenticates. UNAVAILABLE when the node cannot be reached
  // in time, PERMISSION_DENIED when AUTH is refused.
  [[nodiscard]] static Expected<std::unique_ptr<RedisConnection>> Open(const Endpoint& endpoint,
                                                                       const ConnectOptions& options);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Sends one command and reads its reply. UNAVAILABLE (or DEADLINE_EXCEEDED
  // on a timeout) when the connection fails; the connection is broken() then
  // and must be dropped.
  [[nodiscard]] Expected<Reply> Command(const std::vector<std::string>& argv);
  // Sends every command of `commands`, then reads their replies (one round
  // trip): the replies in order, error replies included. A failure is as for
  // Command, for the whole pipeline.
  [[nodiscard]] Expected<std::vector<Reply>> Pipeline(
      const std::vector<std::vector<std::string>>& commands);

  [[nodiscard]] bool broken() const { return broken_; }
  // True when the server has closed this (idle) connection, as a restarted
  // Redis does: a pool hands out a fresh one instead of failing a call on it.
  // One non-blocking peek; no round trip.
  [[nodiscard]] bool PeerClosed() const;
  [[nodiscard]] const Endpoint& endpoint() const { return endpoint_; }

 private:
  RedisConnection(Endpoint endpoint, redisContext* context);
  // Marks the connection broken after a hiredis call failed and says why:
  // DEADLINE_EXCEEDED on a timeout, UNAVAILABLE otherwise. Reads errno: call
  // it right after the failed call.
  [[nodiscard]] Status Failed();

  const Endpoint endpoint_;
  redisContext* context_;
  bool broken_ = false;
};

}  // namespace qdcache::remote
