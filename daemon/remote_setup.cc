#include "daemon/remote_setup.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <optional>

#include "common/file_read.h"
#include "common/units.h"

#include "remote/redis_connection.h"
#include "remote/redis_url.h"
#include "remote/remote_backend_factory.h"
#include "remote/tiered_store.h"

namespace qdcache::daemon {
namespace {

constexpr std::size_t kMaxPasswordFileBytes = 64 << 10;

// Set once by TakeRemotePasswordFromEnvironment, before any other thread.
std::optional<std::string>& TakenPassword() {
  static std::optional<std::string> password;
  return password;
}

}  // namespace

void TakeRemotePasswordFromEnvironment() {
  const char* env = std::getenv(kRemotePasswordEnv);
  if (env == nullptr) return;
  TakenPassword() = std::string(env);
  ::unsetenv(kRemotePasswordEnv);
}

Expected<std::string> LoadRemotePassword(const std::string& path) {
  if (path.empty()) {
    if (TakenPassword()) return *TakenPassword();
    const char* env = std::getenv(kRemotePasswordEnv);
    return std::string(env == nullptr ? "" : env);
  }
  const std::string what = "--remote-password-file " + path;
  QDC_ASSIGN_OR_RETURN(std::string text,
                       ReadSmallFile(path, what, kMaxPasswordFileBytes, FileAccess::kNotWorld));
  text = text.substr(0, text.find('\n'));
  if (!text.empty() && text.back() == '\r') text.pop_back();
  if (text.empty()) return InvalidArgument(what + ": the first line is empty");
  return text;
}

Expected<StoreWithRemote> AddRemoteTier(const DaemonOptions& options, const SharedEntrySigning& signing,
                                        std::unique_ptr<store::ArtifactStore> local) {
  if (options.remote_url.empty()) {
    store::ArtifactStore* local_only = local.get();
    return StoreWithRemote{std::move(local), nullptr, local_only};
  }
  Expected<remote::RemoteUrl> url = remote::ParseRemoteUrl(options.remote_url);
  if (!url.ok()) return url.status().WithContext("--remote");
  remote::RemoteOptions r;
  r.url = std::move(url).value();
  remote::ConnectOptions connect;
  connect.connect_timeout = options.remote_timeout;
  connect.op_timeout = options.remote_timeout;
  connect.username = options.remote_user;
  QDC_ASSIGN_OR_RETURN(connect.password, LoadRemotePassword(options.remote_password_file));
  r.read_only = options.remote_read_only;
  r.max_share_bytes = options.remote_max_share_bytes;
  r.min_share_compile = options.remote_min_share_compile;
  r.backfill = options.remote_backfill;
  r.ttl = options.remote_ttl;
  r.signer = signing.signer;
  r.signatures = signing.policy;
  r.breaker.failure_threshold = options.remote_failures;
  r.breaker.backoff = options.remote_backoff;
  r.breaker.max_backoff = std::max<std::chrono::milliseconds>(options.remote_backoff, std::chrono::seconds(60));
  // No artifact larger than a response can be served anyway.
  r.max_value_bytes = options.max_message_bytes;
  // Nothing larger than a daemon reads back (max_value_bytes) is written.
  if (r.max_share_bytes == 0 || r.max_share_bytes > r.max_value_bytes) r.max_share_bytes = r.max_value_bytes;
  spdlog::info("remote cache {}{}, timeout {} ms, ttl {}, shares artifacts up to {} compiled in {} ms or more, "
               "back-fill {}, {}", r.url.ToString(), r.read_only ? " (read-only)" : "", connect.op_timeout.count(),
               r.ttl.count() == 0 ? std::string("none") : std::to_string(r.ttl.count()) + "s",
               FormatByteSize(r.max_share_bytes),
               r.min_share_compile.count(), r.backfill ? "on" : "off", connect.password.empty() ? "no AUTH"
                                        : (connect.username.empty() ? "AUTH" : "AUTH as " + connect.username));
  Expected<std::unique_ptr<remote::RemoteBackend>> backend = remote::MakeRemoteBackend(r.url, connect);
  if (!backend.ok()) return backend.status().WithContext("--remote");
  auto tier = std::make_unique<remote::RemoteTier>(std::move(r), std::move(backend).value());
  (void)tier->Probe();  // logs; a remote that is down is retried after the back-off
  tier->StartRecoveryProbes();
  remote::RemoteTier* raw = tier.get();
  store::ArtifactStore* local_only = local.get();
  return StoreWithRemote{std::make_unique<remote::TieredStore>(std::move(local), std::move(tier)), raw,
                         local_only};
}

}  // namespace qdcache::daemon
