#include "remote/redis_cluster_backend.h"

#include <map>

#include "remote/cluster_slot.h"
#include "remote/redis_commands.h"

namespace qdcache::remote {
namespace {

constexpr std::string_view kSource = "redis cluster";

}  // namespace

RedisClusterBackend::RedisClusterBackend(std::vector<Endpoint> seeds, ConnectOptions options)
    : seeds_(seeds), client_(std::move(seeds), std::move(options)) {}

Expected<std::optional<std::string>> RedisClusterBackend::Get(std::string_view key) {
  Expected<Reply> reply = client_.Execute(key, {"GET", std::string(key)});
  if (!reply.ok()) return AsBackendStatus(reply.status());
  return GetResult(kSource, std::move(reply).value());
}

Expected<std::vector<std::optional<std::string>>> RedisClusterBackend::MultiGet(
    const std::vector<std::string>& keys) {
  // Keys of one slot share an MGET (Redis refuses one across slots).
  std::map<int, std::vector<std::size_t>> by_slot;
  for (std::size_t i = 0; i < keys.size(); ++i) by_slot[KeySlot(keys[i])].push_back(i);
  std::vector<ClusterClient::KeyedCommand> commands;
  commands.reserve(by_slot.size());
  for (const auto& [slot, indexes] : by_slot) {
    std::vector<std::string> slot_keys;
    slot_keys.reserve(indexes.size());
    for (std::size_t i : indexes) slot_keys.push_back(keys[i]);
    commands.push_back({slot_keys.front(), MGetCommand(slot_keys)});
  }
  std::vector<Expected<Reply>> replies = client_.ExecuteMany(commands);

  std::vector<std::optional<std::string>> values(keys.size());
  std::size_t command = 0;
  for (const auto& [slot, indexes] : by_slot) {
    Expected<Reply>& reply = replies[command++];
    if (!reply.ok()) return AsBackendStatus(reply.status());
    QDC_ASSIGN_OR_RETURN(std::vector<std::optional<std::string>> slot_values,
                         MGetResult(kSource, std::move(reply).value(), indexes.size()));
    for (std::size_t j = 0; j < indexes.size(); ++j) values[indexes[j]] = std::move(slot_values[j]);
  }
  return values;
}

Status RedisClusterBackend::Put(std::string_view key, std::string value, std::chrono::seconds ttl) {
  return AsBackendStatus(client_.Execute(key, SetCommand(key, std::move(value), ttl)).status());
}

Expected<bool> RedisClusterBackend::PutIfAbsent(std::string_view key, std::string value,
                                                std::chrono::milliseconds ttl) {
  Expected<Reply> reply = client_.Execute(key, SetIfAbsentCommand(key, std::move(value), ttl));
  if (!reply.ok()) return AsBackendStatus(reply.status());
  return ConditionalResult(kSource, *reply);
}

Expected<bool> RedisClusterBackend::UpdateIfEquals(std::string_view key, std::string_view value,
                                                   std::chrono::milliseconds ttl) {
  Expected<Reply> reply = client_.Execute(key, UpdateIfEqualsCommand(key, value, ttl));
  if (!reply.ok()) return AsBackendStatus(reply.status());
  return ConditionalResult(kSource, *reply);
}

Status RedisClusterBackend::Ping() { return AsBackendStatus(client_.RefreshSlots()); }

std::string RedisClusterBackend::Describe() const {
  std::string out = "redis-cluster://";
  for (std::size_t i = 0; i < seeds_.size(); ++i) {
    if (i > 0) out += ',';
    out += seeds_[i].ToString();
  }
  return out;
}

}  // namespace qdcache::remote
