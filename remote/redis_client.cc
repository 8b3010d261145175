#include "remote/redis_client.h"

#include "remote/cluster_client.h"

namespace qdcache::remote {

std::unique_ptr<RedisClient> MakeRedisClient(const RemoteUrl& url, const ConnectOptions& options) {
  if (url.cluster) return std::make_unique<ClusterClient>(url.nodes, options);
  return std::make_unique<StandaloneClient>(url.nodes.front(), options);
}

Status ReplyError(const Endpoint& node, const Reply& reply) {
  std::string message = "redis " + node.ToString() + ": " + reply.str;
  if (reply.str.starts_with("MOVED ") || reply.str.starts_with("ASK ")) {
    message += " (a cluster node: use redis-cluster://)";
    return Unavailable(std::move(message));
  }
  // Only the errors known to concern one command (OOM under noeviction,
  // WRONGTYPE on a foreign key) leave the remote usable. Every other one
  // (NOAUTH, LOADING, READONLY on a replica, MISCONF, too many clients, or
  // one we do not know) says the remote is not serving us: the breaker
  // counts it, so a broken Redis costs a round trip per call only until it
  // opens.
  for (const char* one_command : {"OOM", "WRONGTYPE"}) {
    if (reply.str.starts_with(one_command)) return FailedPrecondition(std::move(message));
  }
  return Unavailable(std::move(message));
}

StandaloneClient::StandaloneClient(Endpoint node, ConnectOptions options)
    : node_(std::move(node)), pool_(std::move(options)) {}

Expected<Reply> StandaloneClient::Execute(std::string_view /*key*/,
                                          const std::vector<std::string>& argv) {
  Expected<NodePool::Lease> conn = pool_.Acquire(node_);
  if (!conn.ok()) return conn.status();
  Expected<Reply> reply = (*conn)->Command(argv);
  if (!reply.ok()) {
    pool_.DropIdle(node_);  // the others are likely dead as well
    return reply.status();
  }
  if (reply->is_error()) return ReplyError(node_, *reply);
  return reply;
}

Status StandaloneClient::Ping() {
  Expected<Reply> reply = Execute("", {"PING"});
  return reply.status();
}

}  // namespace qdcache::remote
