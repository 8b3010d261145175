// What a client is told before it connects (the C++ client's
// ClientOptions, the C ABI's options by name) and the few decisions read
// from them and the environment alone. No gRPC or protobuf here:
// libqdcache.so reads the same options and makes the same decisions
// without them.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace qdcache::client {

// Defaults of SpawnOptions (each also read from the environment).
inline constexpr std::chrono::seconds kDefaultSpawnIdleExit{600};     // $QDCACHE_SPAWN_IDLE_EXIT
inline constexpr std::chrono::seconds kDefaultSpawnReadyTimeout{30};  // $QDCACHE_SPAWN_TIMEOUT

struct SpawnOptions {
  // The qdcached to start; empty: FindDaemonBinary() ($QDCACHED_BIN, next to
  // this executable, $PATH).
  std::string daemon_binary;
  // The spawned daemon's --idle-exit. Unset: $QDCACHE_SPAWN_IDLE_EXIT (a
  // duration: 90s, 10m, 2h; 0 = never), else kDefaultSpawnIdleExit.
  std::optional<std::chrono::seconds> idle_exit;
  // How long to wait for the daemon's readiness. Unset:
  // $QDCACHE_SPAWN_TIMEOUT (a duration), else kDefaultSpawnReadyTimeout.
  // Waiting for another client's start (the lock) may take twice as long.
  std::optional<std::chrono::seconds> ready_timeout;
  // More flags for the daemon (e.g. {"--store", dir}). The daemon also sees
  // this process's environment.
  std::vector<std::string> extra_args;
};

struct ClientOptions {
  // Where: empty for both resolves them (client/endpoint.h).
  std::string socket_path;  // used when address is empty
  std::string address;      // "HOST:PORT" for TCP
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};  // per-call deadline
  std::uint64_t max_message_bytes = 256ull << 20;
  std::string client_name = "qdcache-cpp";

  // TCP security (with `address` only; see docs/protocol.md). TLS is on when
  // any tls_ file is set; without tls_ca_file the system's roots verify the
  // daemon's certificate.
  std::string tls_ca_file;      // PEM roots for the daemon's certificate
  std::string tls_cert_file;    // mutual TLS: client certificate chain (PEM), with tls_key_file
  std::string tls_key_file;     // mutual TLS: its private key (PEM)
  std::string tls_server_name;  // name to expect in the daemon's certificate; empty: address's host
  // Bearer token, sent as "authorization: Bearer <token>" on TCP calls (never
  // over the unix socket, where the uid is the identity). Never logged.
  std::string token;

  // Per-user mode (unix socket only, never with `address`): when no daemon
  // listens at the socket, Connect starts one (client/autospawn.h). Unset:
  // $QDCACHE_AUTOSPAWN if set, else off.
  std::optional<bool> spawn;
  SpawnOptions spawn_options;

  // Lookups and compiles on a unix socket over the lean transport (client/lean_channel.h,
  // docs/protocol.md §1.1), gRPC where it cannot carry them: the same
  // answers, faster. Unset: on unless $QDCACHE_LEAN is "0".
  std::optional<bool> lean;
};

// Sets the option called `name` (the C ABI's names: "socket", "timeout",
// "spawn-arg", ... qdcache.h lists them) from its text. INVALID_ARGUMENT for
// an unknown name ("unknown option") or a value it cannot take (the
// parser's words); `options` may be changed only on success.
[[nodiscard]] Status SetClientOption(ClientOptions& o, std::string_view name, std::string_view value);

// Whether to spawn: `choice` if set, else $QDCACHE_AUTOSPAWN if set and not
// empty, else `default_value`. INVALID_ARGUMENT for an unrecognised value of
// the variable. Thread-safe (reads the environment).
[[nodiscard]] Expected<bool> ResolveAutospawn(std::optional<bool> choice, bool default_value);

}  // namespace qdcache::client
