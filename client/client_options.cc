#include "client/client_options.h"

#include <cstdlib>
#include <limits>

#include "common/units.h"

namespace qdcache::client {

Status SetClientOption(ClientOptions& o, std::string_view name, std::string_view value) {
  auto text = [&](std::string& field) {
    field = std::string(value);
    return Status::Ok();
  };
  if (name == "socket") return text(o.socket_path);
  if (name == "address") return text(o.address);
  if (name == "client-name") return text(o.client_name);
  if (name == "tls-ca") return text(o.tls_ca_file);
  if (name == "tls-cert") return text(o.tls_cert_file);
  if (name == "tls-key") return text(o.tls_key_file);
  if (name == "tls-server-name") return text(o.tls_server_name);
  if (name == "token") return text(o.token);
  if (name == "daemon") return text(o.spawn_options.daemon_binary);
  if (name == "spawn-arg") {
    o.spawn_options.extra_args.emplace_back(value);
    return Status::Ok();
  }
  if (name == "timeout") {
    Expected<std::chrono::milliseconds> ms = ParseDurationMillis(value);
    if (!ms.ok()) return ms.status();
    if (ms->count() <= 0) return InvalidArgument("must be positive");
    o.timeout = *ms;
    return Status::Ok();
  }
  if (name == "max-message-bytes") {
    Expected<std::uint64_t> bytes = ParseByteSize(value);
    if (!bytes.ok()) return bytes.status();
    if (*bytes < 1024 || *bytes > std::numeric_limits<int>::max()) {
      return InvalidArgument("must be between 1K and 2047M");
    }
    o.max_message_bytes = *bytes;
    return Status::Ok();
  }
  if (name == "spawn" || name == "lean") {
    Expected<bool> on = ParseBool(value);
    if (!on.ok()) return on.status();
    (name == "spawn" ? o.spawn : o.lean) = *on;
    return Status::Ok();
  }
  if (name == "spawn-idle-exit") {
    Expected<std::chrono::seconds> idle = ParseDuration(value);
    if (!idle.ok()) return idle.status();
    o.spawn_options.idle_exit = *idle;
    return Status::Ok();
  }
  return InvalidArgument("unknown option");
}

Expected<bool> ResolveAutospawn(std::optional<bool> choice, bool default_value) {
  if (choice) return *choice;
  const char* env = std::getenv("QDCACHE_AUTOSPAWN");
  const std::string text = env == nullptr ? "" : env;
  if (text.empty()) return default_value;
  Expected<bool> value = ParseBool(text);
  if (!value.ok()) return InvalidArgument("QDCACHE_AUTOSPAWN=" + text + ": " + value.status().message());
  return value;
}

}  // namespace qdcache::client
