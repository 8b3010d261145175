// The table of every daemon setting (see setting.h). A new setting is one
// entry here plus its DaemonOptions field: the flag, the QDCACHED_*
// environment variable, the config file key, --print-config and
// deploy/qdcached.toml.example (regenerate it; a test compares) follow.
#include <cstdint>
#include <limits>

#include "daemon/daemon_settings.h"
#include "daemon/setting.h"
#include "metrics/listen_address.h"
#include "remote/redis_url.h"

namespace qdcache::daemon {
namespace {

constexpr std::uint64_t kKiB = std::uint64_t{1} << 10;
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kNoMax = std::numeric_limits<std::uint64_t>::max();
constexpr std::size_t kNoMaxCount = std::numeric_limits<std::size_t>::max();

std::vector<Setting> MakeSettings() {
  using O = DaemonOptions;
  std::vector<Setting> s;
  s.push_back(StringSetting("socket", "Unix socket path (empty: $XDG_RUNTIME_DIR/qdcached.sock)", &O::socket_path));
  s.push_back(StringSetting("store", "Store directory (empty: $XDG_CACHE_HOME/qdcached)", &O::store_dir));
  s.push_back(StringSetting("listen", "Also listen on TCP HOST:PORT (empty: no TCP)", &O::listen));
  s.push_back(CountSetting("workers", "Concurrent compiles (0: number of cores)", &O::workers, 0u, 1024u));
  s.push_back(SizeSetting("max-message-bytes", "Largest request/response message (1M to 2047M)",
                          &O::max_message_bytes, kMiB, 2047 * kMiB, false));
  s.push_back(ChoiceSetting("log-level", "trace|debug|info|warn|error|critical|off", &O::log_level,
                            {"trace", "debug", "info", "warn", "error", "critical", "off"}));
  s.push_back(ChoiceSetting("log-format", "Log lines as text (human) or one JSON object per line (json)",
                            &O::log_format, {"human", "json"}));
  Setting metrics = StringSetting(
      "metrics-listen",
      "Prometheus metrics over HTTP at IP:PORT/metrics, unauthenticated: bind a trusted interface (empty: off)",
      &O::metrics_listen);
  metrics.apply = [](std::string_view text, DaemonOptions& o) -> Status {
    if (!text.empty()) QDC_RETURN_IF_ERROR(metrics::ParseListenAddress(text).status());
    o.metrics_listen = std::string(text);
    return Status::Ok();
  };
  s.push_back(std::move(metrics));
  s.push_back(StringSetting("libdevice", "Path of libdevice.10.bc (empty: the one found at build time)",
                            &O::libdevice_path));
  s.push_back(StringSetting("rocm-device-libs",
                            "Directory of ROCm's device libraries, ocml.bc, ockl.bc and oclc_*.bc (empty: the one "
                            "found at build time)",
                            &O::device_libs_dir));
  s.push_back(StringSetting("cuda-libraries",
                            "Directories (DIR[:DIR...]) of CUDA's libnvJitLink, libnvrtc and libnvvm, loaded at run "
                            "time (empty: the dynamic loader's search, then the toolkit found at build time, then "
                            "/usr/local/cuda)",
                            &O::cuda_library_dir));
  // Below 64K one large kernel's artifact (a cubin with its PTX) fills the
  // store alone: every write would evict everything else.
  s.push_back(SizeSetting("max-size",
                          "Store byte cap, at least 64K, with a unit (K/M/G/T; a bare number is refused); least "
                          "recently used entries are evicted (0: none)",
                          &O::max_bytes, 64 * kKiB, kNoMax, true));
  s.push_back(SizeSetting("memory-cache", "Verified artifacts kept in memory for hits, K/M/G suffix (0: none)",
                          &O::memory_cache_bytes, 0, kNoMax, true));
  s.push_back(SizeSetting("answer-cache",
                          "Lookup answers on the unix socket whose keys all hit, kept to answer the same request "
                          "again, from any program of the same user, until what it read changes in the store (a "
                          "program's warm start), K/M/G suffix (0: none)",
                          &O::answer_cache_bytes, 0, kNoMax, true));
  s.push_back(BoolSetting("sync-writes", "fsync every store write (survive power loss, slower)", &O::sync_writes));
  s.push_back(DurationSetting("idle-exit", "Exit after this long without requests, e.g. 10m (0: never)",
                              &O::idle_exit));
  Setting ready_fd = CountSetting("ready-fd", "Write \"ready\\n\" to this fd once serving (for supervisors and tests)",
                                  &O::ready_fd, 0, std::numeric_limits<int>::max());
  ready_fd.configurable = false;  // an fd is only meaningful to one process
  s.push_back(std::move(ready_fd));
  // Compile workers and limits.
  s.push_back(CountSetting("key-workers", "Worker processes computing IR digests", &O::key_workers, 1u, 64u));
  s.push_back(SizeSetting("max-ir-bytes", "Largest IR per kernel, K/M/G suffix", &O::max_ir_bytes, 1, kNoMax, false));
  s.push_back(CountSetting("max-batch", "Most kernels per compile / queries per lookup", &O::max_batch,
                           std::size_t{1}, std::size_t{1} << 20));
  s.push_back(CountSetting("max-queue", "Compiles that may wait for a worker", &O::max_queue, std::size_t{0},
                           std::size_t{1} << 20));
  s.push_back(CountSetting("max-peer-requests", "Requests one tenant may have in flight (0: unlimited)",
                           &O::max_peer_requests, std::size_t{0}, kNoMaxCount));
  s.push_back(DurationSetting("compile-timeout", "Compile time limit per worker call, s/m/h suffix (0: none)",
                              &O::compile_timeout));
  s.push_back(SizeSetting("worker-memory", "Address-space limit of a compile worker, at least 256M (0: none)",
                          &O::worker_memory_bytes, 256 * kMiB, kNoMax, true));
  s.push_back(DurationSetting("failure-memory",
                              "How long an input that crashed a worker is answered from memory (0: off)",
                              &O::failure_memory));
  s.push_back(CountSetting("worker-respawns",
                           "Replacement compile workers started per second at most; more wait (0: unlimited)",
                           &O::worker_respawns, 0u, 10000u));
  s.push_back(CountSetting("peer-failure-burst",
                           "Compile workers one tenant's inputs may use up (crash, hang, refuse) before its "
                           "compiles are refused for a while; its hits are still served (0: unlimited)",
                           &O::peer_failure_burst, 0, 100000));
  s.push_back(MillisSetting("peer-failure-refill",
                            "How often one used-up worker is forgiven a tenant, ms/s suffix",
                            &O::peer_failure_refill, false));
  s.push_back(ChoiceSetting("alias-policy-floor",
                            "Weakest fast-key conflict policy a request gets: off (clients choose), rebind (conflicts "
                            "always counted) or strict (a conflicting compile never moves an alias)",
                            &O::alias_policy_floor, {"off", "rebind", "strict"}));
  // Security (DESIGN §7): see docs/protocol.md for identities and roles.
  s.push_back(StringSetting("socket-group", "Group of the unix socket: its members may connect (empty: the daemon's)",
                            &O::socket_group));
  s.push_back(StringSetting("tls-cert", "TCP: server certificate chain (PEM file)", &O::tls_cert_file));
  s.push_back(StringSetting("tls-key", "TCP: server private key (PEM file)", &O::tls_key_file));
  s.push_back(StringSetting("tls-client-ca", "TCP: require client certificates signed by this CA (PEM file; mutual TLS)",
                            &O::tls_client_ca_file));
  s.push_back(StringSetting("token-file", "TCP: bearer tokens, lines \"NAME ROLE TOKEN\" (file, chmod 600)",
                            &O::token_file));
  s.push_back(ChoiceSetting("tls-client-role", "Role of a client-certificate peer without a token: read|write|admin",
                            &O::tls_client_role, {"read", "write", "admin"}));
  s.push_back(ChoiceSetting("read-compile", "Compile by a read peer: serve (nothing stored) or refuse",
                            &O::read_compile, {"serve", "refuse"}));
  // Remote cache tier (DESIGN §5; remote/remote_tier.h). The Redis password
  // is never a setting: --remote-password-file, else $QDCACHED_REMOTE_PASSWORD.
  Setting remote = StringSetting(
      "remote", "Shared cache: redis://HOST:PORT[/PREFIX] or redis-cluster://HOST:PORT[,HOST:PORT...][/PREFIX] (empty: none)",
      &O::remote_url);
  remote.apply = [](std::string_view text, DaemonOptions& o) -> Status {
    if (!text.empty()) QDC_RETURN_IF_ERROR(remote::ParseRemoteUrl(text).status());
    o.remote_url = std::string(text);
    return Status::Ok();
  };
  s.push_back(std::move(remote));
  s.push_back(StringSetting("remote-user", "Redis ACL user name for AUTH (empty: password only)", &O::remote_user));
  s.push_back(StringSetting("remote-password-file",
                            "File holding the Redis AUTH password, mode 600 (empty: $QDCACHED_REMOTE_PASSWORD)",
                            &O::remote_password_file));
  s.push_back(BoolSetting("remote-read-only", "Read the remote cache, never write to it", &O::remote_read_only));
  s.push_back(MillisSetting("remote-timeout", "Per Redis operation and connect, ms/s suffix", &O::remote_timeout, true));
  s.push_back(DurationSetting("remote-ttl", "Expiry of keys written to the remote (0: none)", &O::remote_ttl));
  s.push_back(MillisSetting("remote-backoff",
                            "How long a failing remote is left alone before a probe; doubles up to 60s",
                            &O::remote_backoff, true));
  s.push_back(CountSetting("remote-failures", "Consecutive remote failures that stop calls to it",
                           &O::remote_failures, 1, 1000));
  s.push_back(SizeSetting("remote-max-share-size",
                          "Largest artifact (payload and PTX) written to the remote; larger ones stay local (0: no "
                          "limit)",
                          &O::remote_max_share_bytes, 1, kNoMax, true));
  s.push_back(MillisSetting("remote-min-share-compile",
                            "Shortest compile whose artifact is written to the remote; quicker ones stay local, "
                            "not worth a round trip (0: all)",
                            &O::remote_min_share_compile, false));
  s.push_back(BoolSetting("remote-backfill",
                          "Keep what the remote serves in the local store too (false: only this daemon's compiles)",
                          &O::remote_backfill));
  s.push_back(StringSetting("remote-signing-key",
                            "Ed25519 private key (PEM, mode 600) that signs every value written to the remote "
                            "(empty: written unsigned)",
                            &O::remote_signing_key));
  s.push_back(StringSetting("remote-trusted-keys",
                            "Ed25519 public keys (PEM file, or a directory of *.pem/*.pub) whose signatures make "
                            "remote values and imported bundle entries usable (empty: none checked)",
                            &O::remote_trusted_keys));
  s.push_back(MillisSetting("remote-lease",
                            "Fleet single-flight: a compile missing everywhere takes a lease this long (renewed "
                            "while it runs) so other daemons wait for its artifact; 0: no leases",
                            &O::remote_lease, false));
  s.push_back(BoolSetting("remote-require-signatures",
                          "With remote-trusted-keys: refuse unsigned remote values and bundle entries (false: "
                          "accept them, while signed ones must still verify)",
                          &O::remote_require_signatures));
  return s;
}

}  // namespace

const std::vector<Setting>& DaemonSettings() {
  static const std::vector<Setting> settings = MakeSettings();
  return settings;
}

}  // namespace qdcache::daemon
