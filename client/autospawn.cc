#include "client/autospawn.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "client/daemon_launcher.h"
#include "client/file_lock.h"
#include "client/socket_probe.h"
#include "common/paths.h"
#include "common/units.h"

namespace qdcache::client {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

Expected<std::chrono::seconds> DurationFromEnv(const char* name,
                                               std::optional<std::chrono::seconds> set,
                                               std::chrono::seconds fallback) {
  if (set) return *set;
  const std::string text = Env(name);
  if (text.empty()) return fallback;
  Expected<std::chrono::seconds> d = ParseDuration(text);
  if (!d.ok()) return d.status().WithContext(std::string("$") + name);
  return *d;
}

// The socket's directory must be this user's alone: the daemon started
// there runs this user's compiles, and its socket, lock and log live there.
Status CheckSocketDir(const std::filesystem::path& socket) {
  if (InPrivateTmpDir(socket.string())) {
    QDC_RETURN_IF_ERROR(CheckPrivateDir(PrivateTmpDir(), /*create=*/true));
  }
  return CheckPrivateDir(socket.parent_path().string(), /*create=*/true);
}

// Nothing listens at `socket` and this process holds the lock: start one.
Status Launch(const std::string& socket, const SpawnOptions& options,
              std::chrono::seconds ready_timeout) {
  QDC_ASSIGN_OR_RETURN(
      std::chrono::seconds idle_exit,
      DurationFromEnv("QDCACHE_SPAWN_IDLE_EXIT", options.idle_exit, kDefaultSpawnIdleExit));
  LaunchPlan plan;
  if (!options.daemon_binary.empty()) {
    plan.binary = std::filesystem::absolute(options.daemon_binary).lexically_normal().string();
  } else {
    QDC_ASSIGN_OR_RETURN(plan.binary, FindDaemonBinary());
  }
  plan.args = {"--socket", socket, "--idle-exit", std::to_string(idle_exit.count()) + "s"};
  plan.args.insert(plan.args.end(), options.extra_args.begin(), options.extra_args.end());
  plan.log_path = socket + ".log";
  plan.ready_timeout = ready_timeout;
  return LaunchDaemon(plan);
}

}  // namespace

Status EnsureDaemon(const std::string& socket_path, const SpawnOptions& options) {
  QDC_ASSIGN_OR_RETURN(SocketState state, ProbeSocket(socket_path));
  if (state == SocketState::kListening) return Status::Ok();
  // The daemon runs in "/": it needs the absolute path.
  std::error_code ec;
  const std::filesystem::path socket =
      std::filesystem::absolute(socket_path, ec).lexically_normal();
  if (ec) return InvalidArgument("socket path " + socket_path + ": " + ec.message());
  const std::string context = "starting qdcached for " + socket.string();
  Status dir_ok = CheckSocketDir(socket);
  if (!dir_ok.ok()) return dir_ok.WithContext(context);
  QDC_ASSIGN_OR_RETURN(
      std::chrono::seconds ready_timeout,
      DurationFromEnv("QDCACHE_SPAWN_TIMEOUT", options.ready_timeout, kDefaultSpawnReadyTimeout));
  if (ready_timeout.count() <= 0)
    return InvalidArgument("the spawn ready timeout must be positive");
  // Whoever holds the lock spends at most about one ready timeout.
  const auto deadline = std::chrono::steady_clock::now() + 2 * ready_timeout;
  Expected<FileLock> lock = FileLock::Acquire(socket.string() + ".lock", deadline);
  if (!lock.ok()) return lock.status().WithContext(context);
  // Another client may have started it while this one waited for the lock.
  QDC_ASSIGN_OR_RETURN(state, ProbeSocket(socket.string()));
  if (state == SocketState::kListening) return Status::Ok();
  Status launched = Launch(socket.string(), options, ready_timeout);
  if (!launched.ok()) return launched.WithContext(context);
  return Status::Ok();
}

}  // namespace qdcache::client
