// Builds the remote cache tier from DaemonOptions (--remote and friends):
// reads the Redis password, probes the remote once, and composes the local
// store with it (remote/tiered_store.h). A remote that does not answer is
// logged and the daemon starts anyway (fail open); a bad URL or an unreadable
// password file is a startup error naming the flag.
#pragma once

#include <memory>
#include <string>

#include "common/expected.h"
#include "daemon/daemon_options.h"
#include "daemon/signing_setup.h"
#include "remote/remote_tier.h"
#include "store/artifact_store.h"

namespace qdcache::daemon {

// The environment variable holding the Redis AUTH password when
// --remote-password-file is not given.
inline constexpr const char* kRemotePasswordEnv = "QDCACHED_REMOTE_PASSWORD";

// Moves $QDCACHED_REMOTE_PASSWORD out of the environment into this process's
// memory, so compile workers and anything else the daemon starts never
// inherit it. Call once, first thing in main, while the process has one
// thread (it calls unsetenv).
void TakeRemotePasswordFromEnvironment();

// The password: the first line of `path` (which others must not be able to
// read), or $QDCACHED_REMOTE_PASSWORD (as taken by
// TakeRemotePasswordFromEnvironment, else as the environment has it now)
// when `path` is empty, or "" for none.
// The password never appears in a Status or the log.
[[nodiscard]] Expected<std::string> LoadRemotePassword(const std::string& path);

struct StoreWithRemote {
  std::unique_ptr<store::ArtifactStore> store;  // the local store, tiered when --remote is set
  remote::RemoteTier* remote = nullptr;         // owned by `store`; null without --remote
  store::ArtifactStore* local = nullptr;        // the local store alone (inside `store`)
};

// `local` unchanged when options.remote_url is empty. Values written are
// signed and values read checked as `signing` says.
[[nodiscard]] Expected<StoreWithRemote> AddRemoteTier(const DaemonOptions& options,
                                                     const SharedEntrySigning& signing,
                                                     std::unique_ptr<store::ArtifactStore> local);

}  // namespace qdcache::daemon
