#include "daemon/daemon_options.h"

#include <CLI/CLI.hpp>
#include <thread>

#include "common/paths.h"
#include "common/units.h"
#include "daemon/version.h"
#include "remote/redis_url.h"

namespace qdcache::daemon {

Expected<DaemonOptions> ParseDaemonFlags(int argc, const char* const* argv) {
  DaemonOptions o;
  CLI::App app{"qdcached: out-of-process compile daemon and cache for GPU/CPU kernels"};
  app.set_version_flag("--version", std::string("qdcached ") + kVersion);
  app.add_option("--socket", o.socket_path, "Unix socket path (default: $XDG_RUNTIME_DIR/qdcached.sock)");
  app.add_option("--store", o.store_dir, "Store directory (default: $XDG_CACHE_HOME/qdcached)");
  app.add_option("--listen", o.listen, "Also listen on TCP HOST:PORT (off by default)");
  app.add_option("--workers", o.workers, "Concurrent compiles (default: number of cores)")
      ->check(CLI::Range(0u, 1024u));
  app.add_option("--max-message-bytes", o.max_message_bytes, "Largest request/response message")
      ->check(CLI::Range(std::uint64_t{1} << 20, std::uint64_t{2047} << 20));
  app.add_option("--log-level", o.log_level, "trace|debug|info|warn|error|critical|off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  app.add_option("--libdevice", o.libdevice_path, "Path of libdevice.10.bc (default: found at build time)");
  std::string max_size;
  app.add_option("--max-size", max_size, "Store byte cap with K/M/G/T suffix (default 10G; 0 = none)");
  app.add_flag("--sync-writes", o.sync_writes, "fsync every store write (survive power loss)");
  app.add_option("--ready-fd", o.ready_fd, "Write \"ready\\n\" to this fd once serving (for supervisors and tests)");
  // Compile workers and limits.
  app.add_option("--key-workers", o.key_workers, "Worker processes computing IR digests (default 1)")
      ->check(CLI::Range(1u, 64u));
  std::string max_ir, worker_memory, compile_timeout, failure_memory;
  app.add_option("--max-ir-bytes", max_ir, "Largest IR per kernel, K/M/G suffix (default 64M)");
  app.add_option("--max-batch", o.max_batch, "Most kernels per compile / queries per lookup (default 4096)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  app.add_option("--max-queue", o.max_queue, "Compiles that may wait for a worker (default 1024)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20));
  app.add_option("--max-peer-requests", o.max_peer_requests,
                 "Requests one tenant may have in flight (default 256; 0 = unlimited)");
  app.add_option("--compile-timeout", compile_timeout, "Compile time limit per worker call (default 120s; 0 = none)");
  app.add_option("--worker-memory", worker_memory, "Address-space limit of a compile worker (default 4G; 0 = none)");
  app.add_option("--failure-memory", failure_memory,
                 "How long an input that crashed a worker is answered from memory (default 10m; 0 = off)");
  // Security (DESIGN §7): see proto/PROTOCOL.md for identities and roles.
  app.add_option("--socket-group", o.socket_group, "Group of the unix socket: its members may connect");
  app.add_option("--tls-cert", o.tls_cert_file, "TCP: server certificate chain (PEM)");
  app.add_option("--tls-key", o.tls_key_file, "TCP: server private key (PEM)");
  app.add_option("--tls-client-ca", o.tls_client_ca_file,
                 "TCP: require client certificates signed by this CA (mutual TLS)");
  app.add_option("--token-file", o.token_file, "TCP: bearer tokens, lines \"NAME ROLE TOKEN\" (chmod 600)");
  app.add_option("--tls-client-role", o.tls_client_role, "Role of a client-certificate peer without a token")
      ->check(CLI::IsMember({"read", "write", "admin"}));
  app.add_option("--read-compile", o.read_compile,
                 "Compile by a read peer: serve (nothing stored) or refuse (PERMISSION_DENIED)")
      ->check(CLI::IsMember({"serve", "refuse"}));
  // Remote cache tier (DESIGN §5).
  std::string remote_timeout, remote_ttl, remote_backoff;
  app.add_option("--remote", o.remote_url,
                 "Shared cache: redis://HOST:PORT[/PREFIX] or redis-cluster://HOST:PORT[,HOST:PORT...][/PREFIX]");
  app.add_option("--remote-user", o.remote_user, "Redis ACL user name for AUTH (optional)");
  app.add_option("--remote-password-file", o.remote_password_file,
                 "File holding the Redis AUTH password (default: $QDCACHED_REMOTE_PASSWORD)");
  app.add_flag("--remote-read-only", o.remote_read_only, "Read the remote cache, never write to it");
  app.add_option("--remote-timeout", remote_timeout, "Per Redis operation and connect (default 200ms)");
  app.add_option("--remote-ttl", remote_ttl, "Expiry of keys written to the remote (default 0 = none)");
  app.add_option("--remote-backoff", remote_backoff,
                 "How long a failing remote is left alone before a probe; doubles up to 60s (default 2s)");
  app.add_option("--remote-failures", o.remote_failures,
                 "Consecutive remote failures that stop calls to it (default 3)")
      ->check(CLI::Range(1, 1000));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return Status(Code::kCancelled, app.help());
  } catch (const CLI::CallForVersion&) {
    return Status(Code::kCancelled, std::string("qdcached ") + kVersion + "\n");
  } catch (const CLI::ParseError& e) {
    return InvalidArgument(e.what());
  }
  if (!max_size.empty()) {
    Expected<std::uint64_t> bytes = ParseByteSize(max_size);
    if (!bytes.ok()) return bytes.status().WithContext("--max-size");
    o.max_bytes = *bytes;
  }
  if (!max_ir.empty()) {
    Expected<std::uint64_t> bytes = ParseByteSize(max_ir);
    if (!bytes.ok() || *bytes == 0) return InvalidArgument("--max-ir-bytes: expected a positive size like 64M");
    o.max_ir_bytes = *bytes;
  }
  if (!worker_memory.empty()) {
    Expected<std::uint64_t> bytes = ParseByteSize(worker_memory);
    if (!bytes.ok()) return bytes.status().WithContext("--worker-memory");
    if (*bytes != 0 && *bytes < (std::uint64_t{256} << 20)) {
      return InvalidArgument("--worker-memory: a worker needs at least 256M (or 0 for no limit)");
    }
    o.worker_memory_bytes = *bytes;
  }
  if (!compile_timeout.empty()) {
    Expected<std::chrono::seconds> d = ParseDuration(compile_timeout);
    if (!d.ok()) return d.status().WithContext("--compile-timeout");
    o.compile_timeout = *d;
  }
  if (!failure_memory.empty()) {
    Expected<std::chrono::seconds> d = ParseDuration(failure_memory);
    if (!d.ok()) return d.status().WithContext("--failure-memory");
    o.failure_memory = *d;
  }
  if (!o.remote_url.empty()) {
    Expected<remote::RemoteUrl> url = remote::ParseRemoteUrl(o.remote_url);
    if (!url.ok()) return url.status().WithContext("--remote");
  } else if (o.remote_read_only || !o.remote_user.empty() || !o.remote_password_file.empty()) {
    return InvalidArgument("--remote-read-only, --remote-user and --remote-password-file need --remote");
  }
  if (!remote_timeout.empty()) {
    Expected<std::chrono::milliseconds> d = ParseDurationMillis(remote_timeout);
    if (!d.ok()) return d.status().WithContext("--remote-timeout");
    if (d->count() == 0) return InvalidArgument("--remote-timeout: must be positive (e.g. 200ms)");
    o.remote_timeout = *d;
  }
  if (!remote_ttl.empty()) {
    Expected<std::chrono::seconds> d = ParseDuration(remote_ttl);
    if (!d.ok()) return d.status().WithContext("--remote-ttl");
    o.remote_ttl = *d;
  }
  if (!remote_backoff.empty()) {
    Expected<std::chrono::milliseconds> d = ParseDurationMillis(remote_backoff);
    if (!d.ok()) return d.status().WithContext("--remote-backoff");
    if (d->count() == 0) return InvalidArgument("--remote-backoff: must be positive (e.g. 2s)");
    o.remote_backoff = *d;
  }
  return o;
}

DaemonOptions WithDefaults(DaemonOptions o) {
  if (o.socket_path.empty()) o.socket_path = DefaultSocketPath();
  if (o.store_dir.empty()) o.store_dir = DefaultStoreDir();
  if (o.workers == 0) o.workers = std::max(1u, std::thread::hardware_concurrency());
  return o;
}

}  // namespace qdcache::daemon
