#include "remote/redis_backend.h"

#include "remote/redis_commands.h"

namespace qdcache::remote {

RedisBackend::RedisBackend(Endpoint node, ConnectOptions options)
    : node_(std::move(node)), source_("redis " + node_.ToString()), pool_(std::move(options)) {}

Expected<Reply> RedisBackend::Run(const std::vector<std::string>& argv) {
  Expected<NodePool::Lease> conn = pool_.Acquire(node_);
  if (!conn.ok()) return AsBackendStatus(conn.status());
  Expected<Reply> reply = (*conn)->Command(argv);
  if (!reply.ok()) {
    pool_.DropIdle(node_);  // the others are likely dead as well
    return AsBackendStatus(reply.status());
  }
  if (reply->is_error()) return ReplyError(node_, *reply);
  return reply;
}

Expected<std::optional<std::string>> RedisBackend::Get(std::string_view key) {
  QDC_ASSIGN_OR_RETURN(Reply reply, Run({"GET", std::string(key)}));
  return GetResult(source_, std::move(reply));
}

Expected<std::vector<std::optional<std::string>>> RedisBackend::MultiGet(
    const std::vector<std::string>& keys) {
  if (keys.empty()) return std::vector<std::optional<std::string>>();
  QDC_ASSIGN_OR_RETURN(Reply reply, Run(MGetCommand(keys)));
  return MGetResult(source_, std::move(reply), keys.size());
}

Status RedisBackend::Put(std::string_view key, std::string value, std::chrono::seconds ttl) {
  return Run(SetCommand(key, std::move(value), ttl)).status();
}

Expected<bool> RedisBackend::PutIfAbsent(std::string_view key, std::string value, std::chrono::milliseconds ttl) {
  QDC_ASSIGN_OR_RETURN(Reply reply, Run(SetIfAbsentCommand(key, std::move(value), ttl)));
  return ConditionalResult(source_, reply);
}

Expected<bool> RedisBackend::UpdateIfEquals(std::string_view key, std::string_view value,
                                            std::chrono::milliseconds ttl) {
  QDC_ASSIGN_OR_RETURN(Reply reply, Run(UpdateIfEqualsCommand(key, value, ttl)));
  return ConditionalResult(source_, reply);
}

Status RedisBackend::Ping() { return Run({"PING"}).status(); }

std::string RedisBackend::Describe() const { return "redis://" + node_.ToString(); }

}  // namespace qdcache::remote
