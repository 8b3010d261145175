#include "remote/redis_commands.h"

namespace qdcache::remote {

std::vector<std::string> SetCommand(std::string_view key, std::string value,
                                    std::chrono::seconds ttl) {
  std::vector<std::string> argv = {"SET", std::string(key), std::move(value)};
  if (ttl.count() > 0) {
    argv.push_back("EX");
    argv.push_back(std::to_string(ttl.count()));
  }
  return argv;
}

std::vector<std::string> MGetCommand(const std::vector<std::string>& keys) {
  std::vector<std::string> argv;
  argv.reserve(keys.size() + 1);
  argv.push_back("MGET");
  argv.insert(argv.end(), keys.begin(), keys.end());
  return argv;
}

std::vector<std::string> SetIfAbsentCommand(std::string_view key, std::string value,
                                            std::chrono::milliseconds ttl) {
  return {"SET", std::string(key), std::move(value), "NX", "PX", std::to_string(ttl.count())};
}

std::vector<std::string> UpdateIfEqualsCommand(std::string_view key, std::string_view value,
                                               std::chrono::milliseconds ttl) {
  // One script for both: Redis runs it atomically, so no other writer slips
  // in between the comparison and the update.
  static constexpr const char* kScript =
      "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end "
      "if ARGV[2] == '0' then return redis.call('DEL', KEYS[1]) end "
      "return redis.call('PEXPIRE', KEYS[1], ARGV[2])";
  return {"EVAL", kScript, "1", std::string(key), std::string(value), std::to_string(ttl.count())};
}

Expected<bool> ConditionalResult(std::string_view source, const Reply& reply) {
  if (reply.type == Reply::Type::kNil) return false;
  if (reply.type == Reply::Type::kStatus && reply.str == "OK") return true;
  if (reply.type == Reply::Type::kInteger) return reply.integer == 1;
  return Unavailable(std::string(source) + ": a conditional write answered neither OK, nil nor 0/1");
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

Status AsBackendStatus(const Status& status) {
  if (status.ok() || status.code() == Code::kFailedPrecondition ||
      status.code() == Code::kUnavailable) {
    return status;
  }
  return Unavailable(status.message());
}

Expected<std::optional<std::string>> GetResult(std::string_view source, Reply reply) {
  switch (reply.type) {
    case Reply::Type::kNil:
      return std::optional<std::string>();
    case Reply::Type::kString:
      return std::optional<std::string>(std::move(reply.str));
    default:
      return Unavailable(std::string(source) + ": GET answered neither a value nor nil");
  }
}

Expected<std::vector<std::optional<std::string>>> MGetResult(std::string_view source, Reply reply,
                                                             std::size_t count) {
  if (reply.type != Reply::Type::kArray || reply.elements.size() != count) {
    return Unavailable(std::string(source) + ": MGET answered " +
                       std::to_string(reply.elements.size()) + " values for " +
                       std::to_string(count) + " keys");
  }
  std::vector<std::optional<std::string>> values;
  values.reserve(count);
  for (Reply& element : reply.elements) {
    // MGET answers nil for a key holding another type: a miss, as documented.
    if (element.type == Reply::Type::kString) {
      values.emplace_back(std::move(element.str));
    } else {
      values.emplace_back();
    }
  }
  return values;
}

}  // namespace qdcache::remote
