// The RemoteBackend (remote_backend.h) a --remote URL names, chosen by its
// scheme: redis:// is one Redis server (redis_backend.h), redis-cluster:// a
// Redis Cluster reached through its seeds (redis_cluster_backend.h).
#pragma once

#include <memory>

#include "common/expected.h"
#include "remote/redis_connection.h"
#include "remote/redis_url.h"
#include "remote/remote_backend.h"

namespace qdcache::remote {

// Connects lazily: nothing is contacted before the first call.
// INVALID_ARGUMENT when `url` names no node (ParseRemoteUrl never answers
// such a URL).
[[nodiscard]] Expected<std::unique_ptr<RemoteBackend>> MakeRemoteBackend(
    const RemoteUrl& url, const ConnectOptions& options);

}  // namespace qdcache::remote
