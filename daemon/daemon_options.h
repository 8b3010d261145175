// Every daemon setting with its default. Each field is one entry of the
// settings table (setting.h, daemon_settings.cc): a flag, a QDCACHED_*
// environment variable and a config file key.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/expected.h"

namespace qdcache::daemon {

struct DaemonOptions {
  std::string socket_path;  // empty: DefaultSocketPath()
  std::string store_dir;    // empty: DefaultStoreDir()
  std::string listen;       // "HOST:PORT" for TCP; empty: TCP off
  unsigned workers = 0;     // compile concurrency; 0: number of cores
  std::uint64_t max_message_bytes = 256ull << 20;
  std::string log_level = "info";
  std::string log_format = "human";  // human | json (one JSON object per line; daemon/log_format.h)
  std::string metrics_listen;        // "HOST:PORT" of the Prometheus endpoint; empty: off
  std::string libdevice_path;  // empty: the one found at build time
  std::string device_libs_dir;  // ROCm device libraries; empty: the directory found at build time
  std::string cuda_library_dir;  // nvJitLink, NVRTC, libNVVM; empty: the loader's search, then the build's
  bool sync_writes = false;    // fsync each store write (power-loss durability)
  std::uint64_t max_bytes = 10ull << 30;  // store byte cap, LRU eviction beyond it; 0 = none
  std::uint64_t memory_cache_bytes = 256ull << 20;  // verified records held for hits; 0 = none
  std::uint64_t answer_cache_bytes = 64ull << 20;   // lean Lookup answers kept to serve again; 0 = none
  int ready_fd = -1;           // write "ready\n" here once serving, then close it
  // Exit (as on SIGTERM) after this long with no RPC in flight or arriving;
  // 0 = never. Per-user daemons started by clients get one (autospawn).
  std::chrono::seconds idle_exit{0};

  // Compile workers and limits (DESIGN §6).
  unsigned key_workers = 1;                        // workers for IR digests (cache-hit path)
  std::uint64_t max_ir_bytes = 64ull << 20;        // per kernel descriptor
  std::size_t max_batch = 4096;                    // kernels per Compile, queries per Lookup
  std::size_t max_queue = 1024;                    // compiles waiting for a worker
  std::size_t max_peer_requests = 256;             // RPCs in flight per tenant; 0 = unlimited
  std::chrono::seconds compile_timeout{120};       // per worker call; 0 = none
  std::uint64_t worker_memory_bytes = 4ull << 30;  // RLIMIT_AS of a worker; 0 = none
  std::chrono::seconds failure_memory{600};        // crashed inputs answered from memory
  unsigned worker_respawns = 20;                   // replacement workers started per second; 0 = unlimited
  int peer_failure_burst = 30;                     // workers a tenant's inputs may use up at once; 0 = unlimited
  std::chrono::milliseconds peer_failure_refill{200};  // one of them forgiven this often
  // Security (DESIGN §7, docs/protocol.md); checked by LoadSecurity.
  std::string socket_group;        // group of the unix socket (mode 0660); empty: the daemon's
  std::string tls_cert_file;       // TCP: server certificate chain (PEM); with tls_key_file
  std::string tls_key_file;        // TCP: its private key (PEM)
  std::string tls_client_ca_file;  // TCP: mutual TLS, client certificates must chain to this CA
  std::string token_file;          // TCP: bearer tokens, lines "NAME ROLE TOKEN"
  std::string tls_client_role = "write";  // role of a client-certificate peer without a token
  std::string read_compile = "serve";     // a read peer's Compile: serve (nothing stored) | refuse
  std::string alias_policy_floor = "off";  // weakest fast-key alias policy a request gets: off | rebind | strict
  // Remote cache tier (DESIGN §5; remote/remote_tier.h); off while remote_url is empty.
  // URL syntax in remote/redis_url.h; checked by ParseDaemonFlags.
  std::string remote_url;            // redis://HOST:PORT[/PREFIX] | redis-cluster://HOST:PORT[,...][/PREFIX]
  std::string remote_user;           // Redis ACL user for AUTH; empty: password only
  std::string remote_password_file;  // AUTH password (first line); empty: $QDCACHED_REMOTE_PASSWORD
  bool remote_read_only = false;     // read the remote, never write it
  std::chrono::milliseconds remote_timeout{200};   // per Redis operation, and per connect
  std::chrono::seconds remote_ttl{0};              // expiry of written keys; 0 = none
  std::chrono::milliseconds remote_backoff{2000};  // breaker open period, doubling up to 60s
  int remote_failures = 3;                         // consecutive failures that open the breaker
  // The shared tier's admission rules and back-fill (remote::RemoteOptions).
  std::uint64_t remote_max_share_bytes = 16ull << 20;  // 0: no limit
  std::chrono::milliseconds remote_min_share_compile{0};
  bool remote_backfill = true;
  // Signed shared entries (daemon/signing_setup.h): the key this daemon signs
  // what it writes with, the keys whose signatures it accepts on what it
  // reads (remote values and imported bundles), and whether unsigned entries
  // are refused when trusted keys are set.
  std::string remote_signing_key;   // private PEM file, mode 600; empty: writes unsigned
  std::string remote_trusted_keys;  // PEM public keys: FILE or DIR; empty: nothing checked
  bool remote_require_signatures = true;
  // Fleet-wide single-flight (daemon/fleet_setup.h): how long a compile
  // lease lasts unrenewed; 0: no leases.
  std::chrono::milliseconds remote_lease{10000};
};

// Where ParseDaemonFlags looks beyond argv.
struct ConfigSources {
  // Environment lookup; null: the process environment. An empty value
  // counts as unset.
  std::function<std::optional<std::string>(const std::string& name)> getenv;
  // Read only if it exists, when neither --config nor QDCACHED_CONFIG names a file.
  std::string default_config_path = "/etc/qdcached/qdcached.toml";
};

// The effective options: each setting from its flag, else its QDCACHED_*
// environment variable, else the config file (--config FILE, else
// $QDCACHED_CONFIG, else the default path if it exists), else its default.
// INVALID_ARGUMENT names the source of a bad value ("--max-size: ...",
// "QDCACHED_MAX_SIZE: ...", "FILE:LINE: max-size: ..."), an unknown flag or
// key, or a config file that was named but does not exist. `--help`,
// `--version` and `--print-config` come back as Code::kCancelled with the
// text to print on stdout in the message.
[[nodiscard]] Expected<DaemonOptions> ParseDaemonFlags(int argc, const char* const* argv,
                                                       const ConfigSources& sources = {});

// Fills empty paths and zero counts with their defaults.
[[nodiscard]] DaemonOptions WithDefaults(DaemonOptions options);

}  // namespace qdcache::daemon
