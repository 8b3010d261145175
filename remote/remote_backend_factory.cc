#include "remote/remote_backend_factory.h"

#include "remote/redis_backend.h"
#include "remote/redis_cluster_backend.h"

namespace qdcache::remote {

Expected<std::unique_ptr<RemoteBackend>> MakeRemoteBackend(const RemoteUrl& url,
                                                           const ConnectOptions& options) {
  if (url.nodes.empty()) return InvalidArgument("remote URL names no node");
  std::unique_ptr<RemoteBackend> backend;
  if (url.cluster) {
    backend = std::make_unique<RedisClusterBackend>(url.nodes, options);
  } else {
    if (url.nodes.size() > 1)
      return InvalidArgument("redis:// names one node; use redis-cluster://");
    backend = std::make_unique<RedisBackend>(url.nodes.front(), options);
  }
  return backend;
}

}  // namespace qdcache::remote
