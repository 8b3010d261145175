// The --remote URL: where the shared cache lives and under which key prefix.
//
//   redis://HOST[:PORT][/PREFIX]                        one Redis server
//   redis-cluster://HOST[:PORT][,HOST[:PORT]...][/PREFIX]  seeds of a Redis Cluster
//
// PORT defaults to 6379; HOST may be a bracketed IPv6 address ("[::1]:6379").
// PREFIX defaults to "qdcache:"; a ':' is appended when it does not end in one.
// Credentials are never part of the URL (a "user:pass@" is refused): they come
// from --remote-password-file or QDCACHED_REMOTE_PASSWORD.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace qdcache::remote {

struct Endpoint {
  std::string host;
  int port = 6379;

  // "HOST:PORT" ("[::1]:6379" for IPv6).
  [[nodiscard]] std::string ToString() const;
  bool operator==(const Endpoint&) const = default;
};

struct RemoteUrl {
  bool cluster = false;
  std::vector<Endpoint> nodes;  // one for redis://, the seeds for redis-cluster://
  std::string prefix = "qdcache:";

  // The URL in canonical form; it never holds a secret, so it may be logged.
  [[nodiscard]] std::string ToString() const;
};

// INVALID_ARGUMENT naming what is wrong (never echoing a userinfo part).
[[nodiscard]] Expected<RemoteUrl> ParseRemoteUrl(std::string_view url);

}  // namespace qdcache::remote
