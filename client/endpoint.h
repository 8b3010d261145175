// Where a client connects, decided once for every client (the CLI, the C++
// client, the C ABI and so Python), each setting by the first of:
//   1. what the caller set: a flag, an argument, an option;
//   2. the environment: QDCACHE_ADDR or QDCACHE_SOCKET (both set: refused),
//      QDCACHE_TOKEN (or QDCACHE_TOKEN_FILE, its first line), QDCACHE_TLS_CA,
//      QDCACHE_TLS_CERT, QDCACHE_TLS_KEY, QDCACHE_TLS_SERVER_NAME;
//   3. the per-user daemon's socket ($XDG_RUNTIME_DIR/qdcached.sock);
//   4. the system service's socket (/run/qdcached/qdcached.sock) instead,
//      when it exists and the per-user one does not.
// A caller that set the socket or the address set the endpoint: the
// environment's endpoint is then not read (nor its TLS and token settings,
// which belong to QDCACHE_ADDR's endpoint unless the caller gave an address).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "client/client_options.h"
#include "common/expected.h"

namespace qdcache::client {

inline constexpr char kSystemSocketPath[] = "/run/qdcached/qdcached.sock";

struct EndpointSources {
  std::function<std::optional<std::string>(const std::string& name)> getenv;  // default: the process's
  std::string user_socket;    // default: DefaultSocketPath()
  std::string system_socket;  // default: kSystemSocketPath
  // Whether a socket file exists at a path; default: lstat(2).
  std::function<bool(const std::string& path)> exists;
};

// Fills in `options`' endpoint, token and TLS settings the caller left
// empty. INVALID_ARGUMENT when QDCACHE_ADDR and QDCACHE_SOCKET are both set
// (and the caller set neither), or QDCACHE_TOKEN_FILE cannot be used.
[[nodiscard]] Status ResolveEndpoint(ClientOptions& options, EndpointSources sources = {});

// The bearer token in the file at `path`: its first line, surrounding
// blanks removed; read bounded, never blocking on a FIFO. Errors name the
// file as `what` ("--token-file f", "QDCACHE_TOKEN_FILE f"): NOT_FOUND or
// PERMISSION_DENIED when it cannot be read, INVALID_ARGUMENT when it holds
// no token.
[[nodiscard]] Expected<std::string> ReadTokenFile(const std::string& path, const std::string& what);

// The message for "nobody serves the unix socket `socket`": names it, says
// whether a stale socket file is there, and how to start a daemon.
[[nodiscard]] std::string NoDaemonMessage(const std::string& socket, bool stale);

}  // namespace qdcache::client
